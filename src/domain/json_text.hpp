#pragma once
// JSON text for everything agentgate writes: compact, with numbers in plain decimal notation.
// Boost.JSON 1.81 writes every double in scientific form (0 as "0E0", 0.0123 as "1.23E-2"),
// valid JSON but startling in a bill or a Salesforce field value.

#include <boost/json/fwd.hpp>

#include <string>

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

}  // namespace agentgate::json_text
