#pragma once
// An error as the API writes it (SPEC §5): {status, code, message} and its extra fields, the
// inside of an error body, and a failed run's `error`.

#include "domain/error.hpp"

#include <boost/json/object.hpp>

namespace agentgate {

boost::json::object ErrorJson(const Error& error);

}  // namespace agentgate
