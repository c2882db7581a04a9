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
  // The events the bytes complete.
  std::vector<SseEvent> Feed(std::string_view bytes);
  // The stream ended: an event it left without its blank line, if any (a reader that accepts a
  // cut stream's last event; the WHATWG rules drop it).
  std::vector<SseEvent> Finish();

 private:
  void Line(std::string_view line, std::vector<SseEvent>& out);
  std::string partial_;  // an unfinished line
  SseEvent event_;
  bool has_data_ = false;
};

}  // namespace agentgate
