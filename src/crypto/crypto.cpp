#include "crypto/crypto.hpp"

#include "domain/hex.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace agentgate::crypto {
namespace {

constexpr std::uint8_t kSealVersion = 1;
constexpr std::size_t kNonceSize = 12;
constexpr std::size_t kTagSize = 16;

using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherCtx NewCtx() {
  CipherCtx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) throw std::runtime_error("EVP_CIPHER_CTX_new failed");
  return ctx;
}

const unsigned char* U(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}
unsigned char* U(std::string& s) {
  return reinterpret_cast<unsigned char*>(s.data());
}

}  // namespace

// RAND_bytes locks OpenSSL's generator on every call, which costs more than an id's whole use on a
// request's path (a request id, a turn id). Each thread draws 4 KiB at once and hands it out in
// order, wiping each part as it goes; large requests go to RAND_bytes directly.
std::string RandomBytes(std::size_t n) {
  constexpr std::size_t kPool = 4096;
  std::string out(n, '\0');
  if (n > kPool / 16) {
    if (RAND_bytes(U(out), static_cast<int>(n)) != 1) throw std::runtime_error("RAND_bytes failed");
    return out;
  }
  struct Pool {
    std::array<unsigned char, kPool> bytes{};
    std::size_t used = kPool;
    ~Pool() { OPENSSL_cleanse(bytes.data(), bytes.size()); }
  };
  thread_local Pool pool;
  if (kPool - pool.used < n) {
    if (RAND_bytes(pool.bytes.data(), static_cast<int>(kPool)) != 1)
      throw std::runtime_error("RAND_bytes failed");
    pool.used = 0;
  }
  std::memcpy(out.data(), pool.bytes.data() + pool.used, n);
  OPENSSL_cleanse(pool.bytes.data() + pool.used, n);
  pool.used += n;
  return out;
}

std::string RandomHex(std::size_t bytes) {
  return ToHex(RandomBytes(bytes));
}

std::string TimeOrderedHex(std::int64_t now_ms, std::size_t random_bytes) {
  // The time's low 48 bits, most significant first (good until the year 10889).
  auto time = static_cast<std::uint64_t>(std::max<std::int64_t>(now_ms, 0));
  std::string big_endian(6, '\0');
  for (int i = 5; i >= 0; --i, time >>= 8)
    big_endian[static_cast<std::size_t>(i)] = static_cast<char>(time & 0xff);
  return ToHex(big_endian) + RandomHex(random_bytes);
}

std::string RandomBase64Url(std::size_t bytes) {
  return Base64Url(RandomBytes(bytes));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length)) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string Base64(std::string_view raw) {
  std::string out(4 * ((raw.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()),
                                static_cast<int>(raw.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> FromBase64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(3 * (text.size() / 4), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding's bytes as zeros.
  std::size_t length = static_cast<std::size_t>(n);
  if (!text.empty() && text.back() == '=') --length;
  if (text.size() >= 2 && text[text.size() - 2] == '=') --length;
  out.resize(length);
  return out;
}

std::string Base64Url(std::string_view raw) {
  std::string out = Base64(raw);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

std::optional<std::string> FromBase64Url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string standard(text);
  for (char& c : standard) {
    if (c == '+' || c == '/' || c == '=') return std::nullopt;  // not of this alphabet
    c = c == '-' ? '+' : c == '_' ? '/' : c;
  }
  standard.append((4 - standard.size() % 4) % 4, '=');
  auto raw = FromBase64(standard);
  // Only the canonical text: unused low bits set would let two texts carry the same bytes.
  if (!raw || Base64Url(*raw) != text) return std::nullopt;
  return raw;
}

std::string Sha256(std::string_view data) {
  // Fetched once, with one context per thread: OpenSSL 3 otherwise looks the algorithm up (under
  // a lock) and allocates a context on every call, most of the cost of hashing a presented token.
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                                 &EVP_MD_CTX_free);
  std::string out(SHA256_DIGEST_LENGTH, '\0');
  if (sha256 == nullptr || !ctx || EVP_DigestInit_ex2(ctx.get(), sha256, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), U(out), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");
  }
  return out;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Result<MasterKey> ParseMasterKey(std::string_view hex, std::string_view what) {
  MasterKey key{};
  if (hex.size() != 64) {
    return MakeError(ErrorCode::kInvalidRequest,
                     std::string(what) + " must be 64 hex characters (32 random bytes)");
  }
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = HexDigitValue(hex[2 * i]);
    const int lo = HexDigitValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return MakeError(ErrorCode::kInvalidRequest, std::string(what) + " must be hex characters");
    }
    key[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return key;
}

std::string Seal(const MasterKey& key, std::string_view plaintext, std::string_view context) {
  const std::string nonce = RandomBytes(kNonceSize);
  std::string cipher(plaintext.size(), '\0');
  std::string tag(kTagSize, '\0');
  auto ctx = NewCtx();
  int len = 0;
  bool ok = EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), U(nonce)) == 1 &&
            EVP_EncryptUpdate(ctx.get(), nullptr, &len, U(context),
                              static_cast<int>(context.size())) == 1 &&
            EVP_EncryptUpdate(ctx.get(), U(cipher), &len, U(plaintext),
                              static_cast<int>(plaintext.size())) == 1 &&
            EVP_EncryptFinal_ex(ctx.get(), U(cipher) + len, &len) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, tag.data()) == 1;
  if (!ok) throw std::runtime_error("AES-256-GCM encryption failed");
  return std::string(1, static_cast<char>(kSealVersion)) + nonce + cipher + tag;
}

Result<std::string> Open(const MasterKey& key, std::string_view sealed, std::string_view context) {
  const auto fail =
      MakeError(ErrorCode::kInternal, "sealed secret cannot be opened with this master key");
  if (sealed.size() < 1 + kNonceSize + kTagSize ||
      static_cast<std::uint8_t>(sealed[0]) != kSealVersion) {
    return fail;
  }
  const std::string_view nonce = sealed.substr(1, kNonceSize);
  const std::string_view cipher =
      sealed.substr(1 + kNonceSize, sealed.size() - 1 - kNonceSize - kTagSize);
  std::string tag(sealed.substr(sealed.size() - kTagSize));
  std::string plain(cipher.size(), '\0');
  auto ctx = NewCtx();
  int len = 0;
  const bool ok =
      EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), U(nonce)) == 1 &&
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, U(context), static_cast<int>(context.size())) ==
          1 &&
      EVP_DecryptUpdate(ctx.get(), U(plain), &len, U(cipher), static_cast<int>(cipher.size())) ==
          1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data()) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), U(plain) + len, &len) == 1;
  if (!ok) return fail;
  return plain;
}

}  // namespace agentgate::crypto
