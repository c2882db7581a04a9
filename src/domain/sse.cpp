#include "domain/sse.hpp"

namespace agentgate {

std::vector<SseEvent> SseDecoder::Feed(std::string_view bytes) {
  std::vector<SseEvent> out;
  Each(bytes, [&out](const SseEvent& event) { out.push_back(event); });
  return out;
}

bool SseDecoder::Line(std::string_view line) {
  if (line.empty()) {
    if (has_data_) return true;
    Reset();
    return false;
  }
  if (line.front() == ':') return false;
  const auto colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "event") {
    event_.event.assign(value);
  } else if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data.append(value);
    has_data_ = true;
  }
  return false;
}

void SseDecoder::Reset() {
  // Cleared, not replaced: the next event is built in this one's room.
  event_.event.clear();
  event_.data.clear();
  has_data_ = false;
}

std::vector<SseEvent> SseDecoder::Finish() {
  std::vector<SseEvent> out;
  if (!partial_.empty()) {
    std::string_view last = partial_;
    if (last.back() == '\r') last.remove_suffix(1);
    if (Line(last)) {
      out.push_back(event_);
      Reset();
    }
    partial_.clear();
  }
  if (Line("")) {  // as if the blank line had come
    out.push_back(event_);
    Reset();
  }
  return out;
}

}  // namespace agentgate
