#pragma once
// Settings whose values are secrets, opened at start-up: the collector's headers sealed in
// [tracing] headers_sealed, and each provider's key pool (api_key_env, api_key_envs,
// api_keys_sealed). Errors name the config key, never a value.

#include "config/config.hpp"
#include "crypto/crypto.hpp"

#include <optional>
#include <string>

namespace agentgate {

// [tracing] headers_sealed opened, its headers added to tracing.headers.
Result<void> OpenSealedTracingHeaders(TracingConfig& tracing,
                                      const std::optional<crypto::MasterKey>& master_key);

// Each provider's `api_keys`, in pool order: api_key_env's (when set), api_key_envs' (each must be
// set), then api_keys_sealed's opened. A provider with none is called without a key.
Result<void> ResolveProviderKeys(std::vector<ProviderConfig>& providers, const EnvLookup& env,
                                 const std::optional<crypto::MasterKey>& master_key);

// `plaintext` sealed for `setting` ("tracing.headers" or "provider.api_key"), base64, after
// checking it is well formed for that setting.
Result<std::string> SealSetting(const std::string& setting, const std::string& plaintext,
                                const crypto::MasterKey& master_key);

}  // namespace agentgate
