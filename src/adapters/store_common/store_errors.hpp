#pragma once
// What a caller learns when the database fails: a retriable 503 without the driver's text (it
// names hosts and ports). The text goes to the operator's log instead.

#include "domain/error.hpp"
#include "observability/log.hpp"

#include <string_view>

namespace agentgate {

inline Error StoreUnavailable(std::string_view backend, std::string_view detail) {
  log::Error("store_error", {{"backend", backend}, {"detail", detail}});
  Error error = MakeError(ErrorCode::kUnavailable, "the store is unavailable; retry shortly");
  error.retry_after_seconds = 1;
  return error;
}

}  // namespace agentgate
