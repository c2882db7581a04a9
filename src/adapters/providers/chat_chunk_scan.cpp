#include "adapters/providers/chat_chunk_scan.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <array>
#include <cstdint>

namespace agentgate::wire {
namespace {

namespace json = boost::json;
using boost::system::error_code;

// Where a value sits, as far as the scan cares.
enum class Place : std::uint8_t {
  kOther,
  kRoot,
  kModel,
  kChoices,
  kChoice,  // choices[0]
  kFinishReason,
  kDelta,
  kContent,
  kMoreThanText,  // a non-null error, usage or tool_calls
};

enum class Key : std::uint8_t {
  kOther,
  kModel,
  kChoices,
  kUsage,
  kError,
  kFinishReason,
  kDelta,
  kContent,
  kToolCalls
};

Key KeyOf(std::string_view name) {
  if (name == "model") return Key::kModel;
  if (name == "choices") return Key::kChoices;
  if (name == "usage") return Key::kUsage;
  if (name == "error") return Key::kError;
  if (name == "finish_reason") return Key::kFinishReason;
  if (name == "delta") return Key::kDelta;
  if (name == "content") return Key::kContent;
  if (name == "tool_calls") return Key::kToolCalls;
  return Key::kOther;
}

struct Frame {
  Place place = Place::kOther;
  bool array = false;
  std::uint32_t items = 0;  // an array's values begun so far
  Key key = Key::kOther;    // an object's current key
};

struct Handler {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  std::string& model;
  std::string& content;
  std::string& finish_reason;
  std::string& key;
  std::array<Frame, 32> stack{};
  std::size_t depth = 0;
  bool more_than_text = false;
  bool not_an_object = false;
  std::string* capture = nullptr;
  bool in_string = false;

  // The place of the value that begins now (an array counts it as one of its items).
  Place Begin() {
    if (depth == 0) return Place::kRoot;
    Frame& top = stack[depth - 1];
    if (top.array) {
      const auto index = top.items++;
      return top.place == Place::kChoices && index == 0 ? Place::kChoice : Place::kOther;
    }
    switch (top.place) {
      case Place::kRoot:
        if (top.key == Key::kModel) return Place::kModel;
        if (top.key == Key::kChoices) return Place::kChoices;
        if (top.key == Key::kUsage || top.key == Key::kError) return Place::kMoreThanText;
        return Place::kOther;
      case Place::kChoice:
        if (top.key == Key::kFinishReason) return Place::kFinishReason;
        if (top.key == Key::kDelta) return Place::kDelta;
        return Place::kOther;
      case Place::kDelta:
        if (top.key == Key::kContent) return Place::kContent;
        if (top.key == Key::kToolCalls) return Place::kMoreThanText;
        return Place::kOther;
      default:
        return Place::kOther;
    }
  }
  bool Open(bool array, error_code& ec) {
    const Place place = Begin();
    if (place == Place::kMoreThanText) more_than_text = true;
    if (depth == 0 && array) not_an_object = true;
    if (depth == stack.size()) {
      ec = json::error::too_deep;  // deeper than any chunk: the DOM reader decides
      return false;
    }
    stack[depth++] = Frame{place, array, 0, Key::kOther};
    return true;
  }
  bool Scalar() {
    const Place place = Begin();
    if (depth == 0) not_an_object = true;
    (void)place;  // a null or a number where text would be says nothing to keep
    return true;
  }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code& ec) { return Open(false, ec); }
  bool on_object_end(std::size_t, error_code&) {
    --depth;
    return true;
  }
  bool on_array_begin(error_code& ec) { return Open(true, ec); }
  bool on_array_end(std::size_t, error_code&) {
    --depth;
    return true;
  }
  bool on_key_part(std::string_view part, std::size_t, error_code&) {
    key.append(part);
    return true;
  }
  bool on_key(std::string_view part, std::size_t, error_code&) {
    Frame& top = stack[depth - 1];
    if (key.empty()) {
      top.key = KeyOf(part);
    } else {
      key.append(part);
      top.key = KeyOf(key);
      key.clear();
    }
    return true;
  }
  bool on_string_part(std::string_view part, std::size_t, error_code&) {
    StartString();
    if (capture != nullptr) capture->append(part);
    return true;
  }
  bool on_string(std::string_view part, std::size_t, error_code&) {
    StartString();
    if (capture != nullptr) capture->append(part);
    in_string = false;
    capture = nullptr;
    return true;
  }
  void StartString() {
    if (in_string) return;
    in_string = true;
    const Place place = Begin();
    if (depth == 0) not_an_object = true;
    capture = place == Place::kModel          ? &model
              : place == Place::kContent      ? &content
              : place == Place::kFinishReason ? &finish_reason
                                              : nullptr;
    if (capture != nullptr) capture->clear();
  }
  bool on_number_part(std::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t, std::string_view, error_code&) { return Scalar(); }
  bool on_uint64(std::uint64_t, std::string_view, error_code&) { return Scalar(); }
  bool on_double(double, std::string_view, error_code&) { return Scalar(); }
  bool on_bool(bool, error_code&) { return Scalar(); }
  bool on_null(error_code&) { return Scalar(); }
  bool on_comment_part(std::string_view, error_code&) { return true; }
  bool on_comment(std::string_view, error_code&) { return true; }
};

}  // namespace

std::optional<ChatChunkText> ChatChunkScanner::Scan(std::string_view data) {
  model_.clear();
  content_.clear();
  finish_reason_.clear();
  key_.clear();
  json::basic_parser<Handler> parser(json::parse_options{}, model_, content_, finish_reason_, key_);
  error_code ec;
  const auto used = parser.write_some(false, data.data(), data.size(), ec);
  const Handler& seen = parser.handler();
  if (ec || seen.more_than_text || seen.not_an_object) return std::nullopt;
  // One document and nothing after it, as a whole parse requires.
  if (data.substr(used).find_first_not_of(" \t\r\n") != std::string_view::npos) return std::nullopt;
  return ChatChunkText{model_, content_, finish_reason_};
}

}  // namespace agentgate::wire
