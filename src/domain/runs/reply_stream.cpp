#include "domain/runs/reply_stream.hpp"

namespace agentgate {
namespace {

// `end`, moved back to the start of the UTF-8 character it falls in, or of one the text ends
// before it is whole: no event carries part of a character.
std::size_t CharacterStart(std::string_view text, std::size_t end, std::size_t floor) {
  if (end < text.size()) {
    while (end > floor && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return end;
  }
  if (end == floor) return end;
  std::size_t last = end - 1;  // the start of the text's last character
  while (last > floor && (static_cast<unsigned char>(text[last]) & 0xC0) == 0x80) --last;
  const auto lead = static_cast<unsigned char>(text[last]);
  const std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return last + length > end ? last : end;
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

std::optional<RunEvent> ReplyStream::Release() {
  if (current_.stopped || events_ + 1 >= text_events_) return std::nullopt;
  const std::size_t end = CharacterStart(
      current_.text, safety_.HoldFrom(current_.text, current_.released), current_.released);
  if (end <= current_.released) return std::nullopt;
  // Past half the budget, each release adds an eighth of what came before: a few dozen more
  // events reach any length.
  if (events_ >= text_events_ / 2 && (end - current_.released) * 8 < released_total_)
    return std::nullopt;
  // The text so far, held-back part included: a match anywhere stops the call's release. No match
  // starts before what was released (HoldFrom's promise), so the checks read from there on.
  if (safety_.BlocksFrom(current_.text, current_.released)) {
    current_.stopped = true;
    return std::nullopt;
  }
  ++events_;
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
