#pragma once
// The one error type of the API: expected failures travel as values (Result<T>), never as
// exceptions. Adapters map ErrorCode to an HTTP status and render the body.

#include <boost/system/result.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace agentgate {

enum class ErrorCode {
  kInvalidRequest,
  kMissingHeader,
  kUnauthenticated,
  kForbidden,
  kNotFound,
  kAgentNotFound,
  kConversationNotFound,
  kInstanceNotFound,
  kRunNotFound,
  kConflict,
  kMethodNotAllowed,
  kSpendLimitReached,
  kIdempotencyKeyInUse,
  kIdempotencyKeyReused,
  kConversationBusy,  // a background run on a conversation with a turn running or queued
  kSuperseded,  // a newer call on the conversation interrupted this turn: nothing of it is stored
  kResponseNotLatest,  // a previous_response_id whose reply is no longer its conversation's last
  kRunEnded,           // cancel of a run that completed or failed
  kRunNotPaused,       // a decision for a run that is not waiting for one
  kApprovalExpired,    // a paused run nobody decided within approval_timeout_seconds
  kQueueFull,          // an organization's queued runs are at their bound
  kTooManyStreams,     // a run's followers or a token's open streams here are at their bound
  kPayloadTooLarge,
  kHeadersTooLarge,
  kRateLimited,
  kTurnTimeout,
  kCanceled,  // the caller canceled the turn (an MCP client): nothing of it is stored
  kNotImplemented,
  kCrmNotConfigured,     // gateway FL05: no CRM credentials for (org, env)
  kCrmAuthFailed,        // gateway FL06: the OAuth refresh failed
  kUpstreamUnavailable,  // the CRM platform did not answer in time
  kUnavailable,
  kInterrupted,  // a run whose server died mid-run: never re-run automatically
  kInternal,
};

// The wire name of a code, e.g. "invalid_request".
std::string_view ErrorCodeName(ErrorCode code);
// The HTTP status the API answers a code with (499 for a caller's own cancel, as nginx logs it).
int HttpStatusOf(ErrorCode code);

// Not an aggregate on purpose: GCC 12 destroys braced aggregate temporaries inside co_await
// expressions twice; a constructed temporary is handled correctly.
struct Error {
  using Detail = std::variant<std::string, double>;

  Error() = default;
  Error(ErrorCode c, std::string m) : code(c), message(std::move(m)) {}

  // Extra fields rendered inside "error" (e.g. the 402's scope, limit_usd, spent_usd, resets_at).
  Error& With(std::string key, Detail value) {
    details.emplace_back(std::move(key), std::move(value));
    return *this;
  }

  // The request field at fault, when the message names one as InvalidField writes it ("field
  // 'x': ..."): a way in whose error shape has a place for it (OpenAI's `param`) renders it there.
  // Read from the message, not kept beside it: an Error is in every Result a turn awaits.
  std::optional<std::string_view> field() const;

  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::vector<std::pair<std::string, Detail>> details;
  std::optional<int> retry_after_seconds;  // sent as the Retry-After header
};

// A failure of the service itself (its store, a dependency), not an answer about the caller's
// request: passed on as it is, never hidden behind a "no such thing".
inline bool IsServiceFailure(const Error& error) {
  return error.code == ErrorCode::kUnavailable || error.code == ErrorCode::kInternal;
}

inline Error MakeError(ErrorCode code, std::string message) {
  return Error{code, std::move(message)};
}

// A turn a newer call on its conversation interrupted ("if_busy": "interrupt"): 409, nothing of
// it stored, named apart from a cancel and from its server's death.
inline Error SupersededError() {
  return Error{ErrorCode::kSuperseded,
               "superseded by a newer call on this conversation (\"if_busy\": \"interrupt\"); "
               "nothing of this turn was stored"};
}

// A 400 naming the offending field: "field 'x': must be a string".
inline Error InvalidField(std::string_view field, std::string_view problem) {
  return Error{ErrorCode::kInvalidRequest,
               "field '" + std::string(field) + "': " + std::string(problem)};
}

template <class T>
using Result = boost::system::result<T, Error>;

// Called by Result<T>::value() on an error; a bug at the call site, so it throws.
[[noreturn]] void throw_exception_from_error(const Error& error, const boost::source_location& loc);

}  // namespace agentgate

// AG_TRY(decl, expr): evaluates a Result; on error returns it from the enclosing function, else
// initialises or assigns `decl` with the value. AG_TRYV(expr) does the same for Result<void>.
#define AG_TRY_CAT2(a, b) a##b
#define AG_TRY_CAT(a, b) AG_TRY_CAT2(a, b)
#define AG_TRY(decl, expr)                                                          \
  auto&& AG_TRY_CAT(ag_try_, __LINE__) = (expr);                                    \
  if (!AG_TRY_CAT(ag_try_, __LINE__)) return AG_TRY_CAT(ag_try_, __LINE__).error(); \
  decl = std::move(*AG_TRY_CAT(ag_try_, __LINE__))
#define AG_TRYV(expr)                       \
  do {                                      \
    auto&& ag_tryv_ = (expr);               \
    if (!ag_tryv_) return ag_tryv_.error(); \
  } while (false)

// The same inside coroutines (co_return instead of return).
#define AG_CO_TRY(decl, expr)                                                          \
  auto&& AG_TRY_CAT(ag_try_, __LINE__) = (expr);                                       \
  if (!AG_TRY_CAT(ag_try_, __LINE__)) co_return AG_TRY_CAT(ag_try_, __LINE__).error(); \
  decl = std::move(*AG_TRY_CAT(ag_try_, __LINE__))
#define AG_CO_TRYV(expr)                       \
  do {                                         \
    auto&& ag_tryv_ = (expr);                  \
    if (!ag_tryv_) co_return ag_tryv_.error(); \
  } while (false)
