#pragma once
// The few cryptographic primitives agentgate needs, on OpenSSL: random secrets, hashes for API
// tokens, constant-time comparison, and AES-256-GCM sealing of CRM secrets at rest.

#include "domain/error.hpp"
#include "domain/hex.hpp"  // ToHex

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace agentgate::crypto {

using MasterKey = std::array<std::uint8_t, 32>;

std::string RandomBytes(std::size_t n);
std::string RandomHex(std::size_t bytes);  // 2*bytes hex characters
// 12 hex digits of `now_ms`, then 2*random_bytes random ones: ids made later sort after, so a
// store's index of them grows at its right edge instead of at a random page per insert.
std::string TimeOrderedHex(std::int64_t now_ms, std::size_t random_bytes);
std::string RandomBase64Url(std::size_t bytes);  // unpadded base64url

std::string Sha256(std::string_view data);                            // 32 raw bytes
std::string HmacSha256(std::string_view key, std::string_view data);  // 32 raw bytes
std::string Base64(std::string_view raw);                             // standard, padded
std::optional<std::string> FromBase64(std::string_view text);         // nullopt when malformed
std::string Base64Url(std::string_view raw);                          // RFC 4648 §5, unpadded
std::optional<std::string> FromBase64Url(std::string_view text);      // unpadded; nullopt if not
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// 64 hex characters -> key; anything else is an error naming `what`.
Result<MasterKey> ParseMasterKey(std::string_view hex, std::string_view what);

// AES-256-GCM: output is version byte, 12-byte nonce, ciphertext, 16-byte tag. `context` is
// bound as associated data so a sealed value cannot be moved to another row.
std::string Seal(const MasterKey& key, std::string_view plaintext, std::string_view context);
Result<std::string> Open(const MasterKey& key, std::string_view sealed, std::string_view context);

}  // namespace agentgate::crypto
