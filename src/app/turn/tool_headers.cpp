#include "app/turn/tool_headers.hpp"

#include "app/seal_contexts.hpp"

#include <cstdlib>
#include <string_view>

namespace agentgate {
namespace {

// A line break (or NUL) in a value would end the header and start another of the caller's choosing.
bool BreaksTheHeader(std::string_view value) {
  return value.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos;
}

}  // namespace

boost::asio::awaitable<Result<HeaderList>> ToolHeaders::Resolve(
    const std::string& org_id, const std::map<std::string, HeaderValue>& headers) {
  HeaderList out;
  for (const auto& [name, value] : headers) {
    if (!value.env.empty()) {
      if (JudgeHeaderEnv(env_policy_, value.env) != HeaderEnvVerdict::kAllowed)
        co_return Error(ErrorCode::kForbidden, "header '" + name + "' names environment variable " +
                                                   value.env +
                                                   ", which this server does not let tools read");
      const char* set = std::getenv(value.env.c_str());
      if (set == nullptr)
        co_return Error(
            ErrorCode::kUnavailable,
            "header '" + name + "' names environment variable " + value.env + ", which is not set");
      if (BreaksTheHeader(set))
        co_return Error(ErrorCode::kUnavailable,
                        "header '" + name + "' names environment variable " + value.env +
                            ", whose value holds a line break; nothing was sent");
      out.emplace_back(name, set);
    } else if (!value.secret.empty()) {
      const std::string unset =
          "header '" + name + "' names tool secret '" + value.secret + "', which is not set";
      if (store_ == nullptr || !master_key_) co_return Error(ErrorCode::kUnavailable, unset);
      auto record =
          co_await store_->Run([&](Store& s) { return s.GetToolSecret(org_id, value.secret); });
      if (!record) co_return record.error();
      if (!*record) co_return Error(ErrorCode::kUnavailable, unset);
      auto opened = crypto::Open(*master_key_, (*record)->sealed,
                                 ToolSecretSealContext(org_id, value.secret));
      if (!opened)
        co_return Error(ErrorCode::kUnavailable,
                        "tool secret '" + value.secret + "' cannot be opened with this master key");
      if (BreaksTheHeader(*opened))
        co_return Error(ErrorCode::kUnavailable,
                        "header '" + name + "' names tool secret '" + value.secret +
                            "', whose value holds a line break; nothing was sent");
      out.emplace_back(name, std::move(*opened));
    } else {
      out.emplace_back(name, value.literal);
    }
  }
  co_return out;
}

}  // namespace agentgate
