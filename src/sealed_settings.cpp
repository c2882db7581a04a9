#include "sealed_settings.hpp"

#include "config/otel_env.hpp"

namespace agentgate {
namespace {

// What each sealed setting is sealed for: a value sealed for anything else does not open.
constexpr std::string_view kTracingHeadersContext = "agentgate/config/tracing.headers";
constexpr std::string_view kProviderKeyContext = "agentgate/config/provider.api_key";

Error Refused(const std::string& key, const std::string& why) {
  return Error(ErrorCode::kInvalidRequest, "config key '" + key + "': " + why);
}

Result<std::string> OpenSealed(const std::string& key, const std::string& value,
                               const std::optional<crypto::MasterKey>& master_key,
                               std::string_view context) {
  if (!master_key) return Refused(key, "opening it needs the master key, and none is set");
  const auto sealed = crypto::FromBase64(value);
  if (!sealed) return Refused(key, "is not base64");
  auto opened = crypto::Open(*master_key, *sealed, context);
  if (!opened) return Refused(key, "does not open with this master key");
  return std::move(*opened);
}

}  // namespace

Result<void> OpenSealedTracingHeaders(TracingConfig& tracing,
                                      const std::optional<crypto::MasterKey>& master_key) {
  if (tracing.headers_sealed.empty()) return {};
  const std::string key = "tracing.headers_sealed";
  AG_TRY(auto opened, OpenSealed(key, tracing.headers_sealed, master_key, kTracingHeadersContext));
  AG_TRY(auto headers, ParseKeyValueList(opened, "config key '" + key + "'"));
  for (auto& header : headers) tracing.headers.push_back(std::move(header));
  return {};
}

Result<void> ResolveProviderKeys(std::vector<ProviderConfig>& providers, const EnvLookup& env,
                                 const std::optional<crypto::MasterKey>& master_key) {
  for (std::size_t i = 0; i < providers.size(); ++i) {
    ProviderConfig& p = providers[i];
    const std::string at = "providers[" + std::to_string(i) + "]";
    p.api_keys.clear();
    if (!p.api_key_env.empty()) {
      if (auto value = env(p.api_key_env); value && !value->empty())
        p.api_keys.push_back(std::move(*value));
    }
    for (std::size_t k = 0; k < p.api_key_envs.size(); ++k) {
      auto value = env(p.api_key_envs[k]);
      if (!value || value->empty()) {
        return Refused(at + ".api_key_envs[" + std::to_string(k) + "]",
                       "the variable " + p.api_key_envs[k] + " is not set");
      }
      p.api_keys.push_back(std::move(*value));
    }
    for (std::size_t k = 0; k < p.api_keys_sealed.size(); ++k) {
      AG_TRY(auto value, OpenSealed(at + ".api_keys_sealed[" + std::to_string(k) + "]",
                                    p.api_keys_sealed[k], master_key, kProviderKeyContext));
      p.api_keys.push_back(std::move(value));
    }
  }
  return {};
}

Result<std::string> SealSetting(const std::string& setting, const std::string& plaintext,
                                const crypto::MasterKey& master_key) {
  std::string_view context;
  if (setting == "tracing.headers") {
    // Checked before it is sealed, so a start-up never finds it malformed; never quoted.
    AG_TRYV(ParseKeyValueList(plaintext, "the headers read from standard input"));
    context = kTracingHeadersContext;
  } else if (setting == "provider.api_key") {
    if (plaintext.empty() || plaintext.find_first_of(" \t\r\n") != std::string::npos)
      return Error(ErrorCode::kInvalidRequest,
                   "the key read from standard input must be one line without spaces");
    context = kProviderKeyContext;
  } else {
    return Error(ErrorCode::kInvalidRequest,
                 "agentgate seals tracing.headers and provider.api_key (got '" + setting + "')");
  }
  return crypto::Base64(crypto::Seal(master_key, plaintext, context));
}

}  // namespace agentgate
