#include "domain/runs/reply_stream.hpp"

namespace agentgate {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

void ReplyStream::CallStarted(int call) {
  current_ = CallText{call, {}, 0, false};
}

std::optional<RunEvent> ReplyStream::Release(CallText& call, std::size_t end) {
  if (end <= call.released) return std::nullopt;
  const std::string_view text = call.text;
  RunEvent event =
      run_events::TextDelta(text.substr(call.released, end - call.released), call.call);
  released_total_ += end - call.released;
  call.released = end;
  return event;
}

std::optional<RunEvent> ReplyStream::Piece(std::string_view piece) {
  current_.text.append(piece);
  if (current_.stopped || current_.text.size() < kHoldBack) return std::nullopt;
  std::size_t end = current_.text.size() - kHoldBack;
  while (end > current_.released && !IsSpace(current_.text[end - 1])) --end;
  if (end < current_.released + kMinRelease) return std::nullopt;
  // The whole text so far, held-back part included: a match anywhere stops the call's release.
  if (safety_.Blocks(current_.text)) {
    current_.stopped = true;
    return std::nullopt;
  }
  return Release(current_, end);
}

std::vector<RunEvent> ReplyStream::CallEnded(bool ok, bool called_tools) {
  std::vector<RunEvent> out;
  if (!ok) {
    if (current_.released > 0) out.push_back(run_events::TextRetracted(current_.call));
    current_ = CallText{};
    return out;
  }
  if (current_.text.empty()) return out;
  // A step's commentary before its tools is whole now: shown if it passes.
  if (called_tools && !current_.stopped && !safety_.Blocks(current_.text)) {
    if (auto rest = Release(current_, current_.text.size())) out.push_back(std::move(*rest));
  }
  last_reply_ = std::move(current_);
  current_ = CallText{};
  return out;
}

std::vector<RunEvent> ReplyStream::Settled(std::string_view reply_text, bool blocked) {
  std::vector<RunEvent> out;
  if (blocked) {
    if (released_total_ > 0) out.push_back(run_events::TextRetracted(std::nullopt));
    return out;
  }
  if (last_reply_ && last_reply_->text == reply_text) {
    if (auto rest = Release(*last_reply_, last_reply_->text.size()))
      out.push_back(std::move(*rest));
  } else if (!reply_text.empty()) {
    // Not one call's text (no call streamed it): sent whole, as a turn without streaming does.
    out.push_back(run_events::TextDelta(reply_text, std::nullopt));
  }
  return out;
}

}  // namespace agentgate
