#pragma once
// ES256 (ECDSA on P-256 with SHA-256) signatures in the JWS compact serialization (RFC 7515), for
// the access tokens of the built-in authorization server (docs/mcp.md, OAuth). Keys are kept as
// raw bytes: the private scalar is what gets sealed at rest, the public point what the JWKS shows.

#include <optional>
#include <string>
#include <string_view>

namespace agentgate::crypto {

struct Es256Key {
  std::string private_scalar;  // 32 bytes, big-endian
  std::string public_point;    // 65 bytes: 0x04, x, y (uncompressed, SEC 1)
};

Es256Key GenerateEs256Key();
// The 64-byte r || s of RFC 7518 §3.4 (not DER), s in its low form (s <= n / 2).
std::string SignEs256(const Es256Key& key, std::string_view data);
// False for a signature of another length, a point off the curve, a mismatch, or s in its high
// form (s > n / 2: the same signature written the other way; docs/mcp.md).
bool VerifyEs256(std::string_view public_point, std::string_view data, std::string_view signature);
// (r, n - s): a signature's other form, which verifies in plain ECDSA but not here.
std::string HighSForm(std::string_view signature);

// header.payload.signature, each part base64url without padding.
std::string SignCompactJws(std::string_view header_json, std::string_view payload_json,
                           const Es256Key& key);

struct CompactJws {
  std::string header_json;
  std::string payload_json;
  std::string signing_input;  // the first two parts as sent, which the signature covers
  std::string signature;      // raw bytes
};
// nullopt unless three base64url parts; nothing is verified here.
std::optional<CompactJws> ReadCompactJws(std::string_view token);

}  // namespace agentgate::crypto
