#pragma once
// JSON text for everything agentgate writes: compact, with numbers in plain decimal notation.
// Boost.JSON 1.81 writes every double in scientific form (0 as "0E0", 0.0123 as "1.23E-2"),
// valid JSON but startling in a bill or a Salesforce field value.

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace agentgate::json_text {

// Doubles use the shortest text that reads back to the same value ("0", "0.0123", "1e-07");
// NaN and infinities, which JSON cannot carry, are written as null. Strings that are not valid
// UTF-8 (a platform's body, a tool's answer) have each bad byte written as U+FFFD: the text is
// always valid JSON.
std::string Write(const boost::json::value& value);
// The same for an object or an array as it is: passed as a value, it would first be copied into
// one (a transcript's whole tree, each turn).
std::string Write(const boost::json::object& object);
std::string Write(const boost::json::array& array);

// As Write, with object keys sorted so equal values compare equal as text.
std::string WriteCanonical(const boost::json::value& value);

// An object written member by member straight to text, as Write would write the same tree, with
// no json::object built first (a run's events, a turn's transcript, an invoke's body). A member
// may be an object or an array, opened with Object(key) or Array(key) and closed with End(); an
// array's elements are added with the calls that take no key. Keys are written as given: names of
// this program's own that need no escaping. Nesting goes at most 64 deep.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::size_t reserve = 128);
  ObjectWriter& String(std::string_view key, std::string_view value);
  ObjectWriter& Int(std::string_view key, std::int64_t value);
  ObjectWriter& Number(std::string_view key, double value);
  ObjectWriter& Bool(std::string_view key, bool value);
  ObjectWriter& Null(std::string_view key);
  ObjectWriter& Value(std::string_view key, const boost::json::value& value);
  ObjectWriter& Object(std::string_view key);
  ObjectWriter& Array(std::string_view key);
  // An array's elements.
  ObjectWriter& Object();
  ObjectWriter& String(std::string_view value);
  // Closes the innermost open object or array.
  ObjectWriter& End();
  std::string Finish();  // the text: the writer is spent

 private:
  void Separate();
  void Key(std::string_view key);
  void Open(char bracket);
  std::string out_;
  bool first_ = true;         // the innermost open object or array has nothing in it yet
  int depth_ = 0;             // objects and arrays open inside the outermost object
  std::uint64_t arrays_ = 0;  // bit d: the one open at depth d + 1 is an array
};

}  // namespace agentgate::json_text
