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

// A small object written member by member straight to text, as Write would write it, with no
// json::object built first (a run's events, several a model call). Keys are written as given:
// names of this program's own that need no escaping.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::size_t reserve = 128);
  ObjectWriter& String(std::string_view key, std::string_view value);
  ObjectWriter& Int(std::string_view key, std::int64_t value);
  ObjectWriter& Number(std::string_view key, double value);
  ObjectWriter& Bool(std::string_view key, bool value);
  ObjectWriter& Null(std::string_view key);
  ObjectWriter& Value(std::string_view key, const boost::json::value& value);
  std::string Finish();  // the text: the writer is spent

 private:
  void Key(std::string_view key);
  std::string out_;
};

}  // namespace agentgate::json_text
