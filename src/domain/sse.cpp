#include "domain/sse.hpp"

namespace agentgate {

std::vector<SseEvent> SseDecoder::Feed(std::string_view bytes) {
  std::vector<SseEvent> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\n') continue;
    std::string_view piece = bytes.substr(start, i - start);
    if (!partial_.empty()) {
      partial_.append(piece);
      piece = partial_;
    }
    if (!piece.empty() && piece.back() == '\r') piece.remove_suffix(1);
    Line(piece, out);
    partial_.clear();
    start = i + 1;
  }
  partial_.append(bytes.substr(start));
  return out;
}

void SseDecoder::Line(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    if (has_data_) out.push_back(std::move(event_));
    event_ = SseEvent{};
    has_data_ = false;
    return;
  }
  if (line.front() == ':') return;
  const auto colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "event") {
    event_.event = std::string(value);
  } else if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data.append(value);
    has_data_ = true;
  }
}

std::vector<SseEvent> SseDecoder::Finish() {
  std::vector<SseEvent> out;
  if (!partial_.empty()) {
    std::string_view last = partial_;
    if (last.back() == '\r') last.remove_suffix(1);
    Line(last, out);
    partial_.clear();
  }
  Line("", out);  // as if the blank line had come
  return out;
}

}  // namespace agentgate
