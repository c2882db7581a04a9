#include "domain/json_duplicates.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <cstdint>
#include <set>
#include <vector>

namespace agentgate {
namespace {

namespace json = boost::json;
using boost::system::error_code;

// A SAX handler that walks the text once, remembering the keys of every open object.
class DuplicateFinder {
 public:
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);

  std::optional<std::string> duplicate;

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) {
    Value();
    frames_.push_back(Frame{true, {}, {}, -1});
    return true;
  }
  bool on_object_end(std::size_t, error_code&) {
    frames_.pop_back();
    return true;
  }
  bool on_array_begin(error_code&) {
    Value();
    frames_.push_back(Frame{false, {}, {}, -1});
    return true;
  }
  bool on_array_end(std::size_t, error_code&) {
    frames_.pop_back();
    return true;
  }
  bool on_key_part(std::string_view part, std::size_t, error_code&) {
    key_.append(part);
    return true;
  }
  bool on_key(std::string_view part, std::size_t, error_code& ec) {
    key_.append(part);
    Frame& object = frames_.back();
    if (!object.keys.insert(key_).second) {
      object.key = key_;
      duplicate = Path();
      ec = json::error::syntax;  // stop here: one finding is enough
      return false;
    }
    object.key = std::move(key_);
    key_.clear();
    return true;
  }
  bool on_string_part(std::string_view, std::size_t, error_code&) { return true; }
  bool on_string(std::string_view, std::size_t, error_code&) { return Value(); }
  bool on_number_part(std::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t, std::string_view, error_code&) { return Value(); }
  bool on_uint64(std::uint64_t, std::string_view, error_code&) { return Value(); }
  bool on_double(double, std::string_view, error_code&) { return Value(); }
  bool on_bool(bool, error_code&) { return Value(); }
  bool on_null(error_code&) { return Value(); }
  bool on_comment_part(std::string_view, error_code&) { return true; }
  bool on_comment(std::string_view, error_code&) { return true; }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;     // objects: the key whose value comes next
    std::int64_t index;  // arrays: the element being read
  };

  // A value begins: inside an array it is the next element.
  bool Value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }

  std::string Path() const {
    std::string path;
    for (const auto& f : frames_) {
      if (f.object) {
        path += (path.empty() ? "" : ".") + f.key;
      } else {
        path += "[" + std::to_string(f.index) + "]";
      }
    }
    return path;
  }

  std::vector<Frame> frames_;
  std::string key_;
};

}  // namespace

std::optional<std::string> FirstDuplicateKey(std::string_view text) {
  json::basic_parser<DuplicateFinder> parser{json::parse_options{}};
  error_code ec;
  parser.write_some(false, text.data(), text.size(), ec);
  return parser.handler().duplicate;
}

}  // namespace agentgate
