#pragma once
// Server-sent events read as the WHATWG rules say (lines end with LF or CRLF, a blank line ends
// an event, lines starting with ':' are comments, one space after the colon is dropped, data
// lines join with '\n'), from bytes that arrive in pieces cut anywhere. Pure; read by the MCP
// client (a whole body) and the model providers' streams (piece by piece).

#include <string>
#include <string_view>
#include <vector>

namespace agentgate {

struct SseEvent {
  std::string event;  // "" when the stream names none
  std::string data;   // data lines joined by "\n"
};

class SseDecoder {
 public:
  // Calls `each(const SseEvent&)` with every event the bytes complete, in order. The event is
  // the decoder's own, valid during the call: a stream read piece by piece builds each event in
  // the room the one before it had.
  template <class OnEvent>
  void Each(std::string_view bytes, OnEvent&& each) {
    std::size_t start = 0;
    for (std::size_t end = bytes.find('\n'); end != std::string_view::npos;
         start = end + 1, end = bytes.find('\n', start)) {
      std::string_view line = bytes.substr(start, end - start);
      if (!partial_.empty()) {
        partial_.append(line);
        line = partial_;
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (Line(line)) {
        each(static_cast<const SseEvent&>(event_));
        Reset();
      }
      partial_.clear();
    }
    partial_.append(bytes.substr(start));
  }
  // The events the bytes complete.
  std::vector<SseEvent> Feed(std::string_view bytes);
  // The stream ended: an event it left without its blank line, if any (a reader that accepts a
  // cut stream's last event; the WHATWG rules drop it).
  std::vector<SseEvent> Finish();

 private:
  // Reads one line; true when it completes an event (in event_).
  bool Line(std::string_view line);
  void Reset();
  std::string partial_;  // an unfinished line
  SseEvent event_;
  bool has_data_ = false;
};

}  // namespace agentgate
