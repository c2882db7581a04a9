#include "crypto/jws.hpp"

#include "crypto/crypto.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>
#include <stdexcept>

namespace agentgate::crypto {
namespace {

constexpr std::size_t kScalarSize = 32;
constexpr std::size_t kPointSize = 65;

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using KeyCtx = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using Bignum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using SecretBignum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_clear_free>>;
using ParamBuilder = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using Params = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using Signature = std::unique_ptr<ECDSA_SIG, Deleter<ECDSA_SIG, ECDSA_SIG_free>>;

const unsigned char* U(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// P-256's group order n, and n / 2: of the two signatures (r, s) and (r, n - s) that verify alike,
// only the one with s <= n / 2 is made and taken, so a token has one form (no malleability).
const BIGNUM* Order() {
  static BIGNUM* n = [] {
    BIGNUM* out = nullptr;
    BN_hex2bn(&out, "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551");
    return out;
  }();
  return n;
}
const BIGNUM* HalfOrder() {
  static BIGNUM* half = [] {
    BIGNUM* out = BN_new();
    BN_rshift1(out, Order());
    return out;
  }();
  return half;
}

// A P-256 key from its raw parts; nullptr when they do not make one (a point off the curve).
Key FromParts(std::string_view public_point, std::string_view private_scalar) {
  ParamBuilder builder(OSSL_PARAM_BLD_new());
  if (!builder) return nullptr;
  SecretBignum scalar;
  OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0);
  OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, public_point.data(),
                                   public_point.size());
  if (!private_scalar.empty()) {
    scalar.reset(BN_bin2bn(U(private_scalar), static_cast<int>(private_scalar.size()), nullptr));
    if (!scalar) return nullptr;
    OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_PRIV_KEY, scalar.get());
  }
  Params params(OSSL_PARAM_BLD_to_param(builder.get()));
  KeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1) return nullptr;
  EVP_PKEY* key = nullptr;
  const int selection = private_scalar.empty() ? EVP_PKEY_PUBLIC_KEY : EVP_PKEY_KEYPAIR;
  if (EVP_PKEY_fromdata(ctx.get(), &key, selection, params.get()) != 1) return nullptr;
  return Key(key);
}

std::string Padded(const BIGNUM* n) {
  std::string out(kScalarSize, '\0');
  if (BN_bn2binpad(n, reinterpret_cast<unsigned char*>(out.data()), kScalarSize) < 0)
    throw std::runtime_error("a P-256 number does not fit 32 bytes");
  return out;
}

}  // namespace

Es256Key GenerateEs256Key() {
  Key key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) throw std::runtime_error("P-256 key generation failed");
  BIGNUM* raw_scalar = nullptr;
  if (EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_PRIV_KEY, &raw_scalar) != 1)
    throw std::runtime_error("reading a P-256 private key failed");
  const SecretBignum scalar(raw_scalar);
  Es256Key out{Padded(scalar.get()), std::string(kPointSize, '\0')};
  std::size_t length = 0;
  if (EVP_PKEY_get_octet_string_param(key.get(), OSSL_PKEY_PARAM_PUB_KEY,
                                      reinterpret_cast<unsigned char*>(out.public_point.data()),
                                      out.public_point.size(), &length) != 1 ||
      length != kPointSize) {
    throw std::runtime_error("reading a P-256 public key failed");
  }
  return out;
}

std::string SignEs256(const Es256Key& key, std::string_view data) {
  const Key pkey = FromParts(key.public_point, key.private_scalar);
  const MdCtx md(EVP_MD_CTX_new());
  if (!pkey || !md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, pkey.get()) != 1)
    throw std::runtime_error("ES256 signing could not start (a damaged key?)");
  std::size_t length = 0;
  if (EVP_DigestSign(md.get(), nullptr, &length, U(data), data.size()) != 1)
    throw std::runtime_error("ES256 signing failed");
  std::string der(length, '\0');
  if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(der.data()), &length, U(data),
                     data.size()) != 1) {
    throw std::runtime_error("ES256 signing failed");
  }
  const unsigned char* cursor = U(der);
  const Signature signature(d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(length)));
  if (!signature) throw std::runtime_error("ES256 signature unreadable");
  const BIGNUM* s = ECDSA_SIG_get0_s(signature.get());
  if (BN_cmp(s, HalfOrder()) <= 0) return Padded(ECDSA_SIG_get0_r(signature.get())) + Padded(s);
  const Bignum low(BN_new());
  if (!low || BN_sub(low.get(), Order(), s) != 1) throw std::runtime_error("ES256 signing failed");
  return Padded(ECDSA_SIG_get0_r(signature.get())) + Padded(low.get());
}

std::string HighSForm(std::string_view signature) {
  if (signature.size() != 2 * kScalarSize) return std::string(signature);
  const Bignum s(BN_bin2bn(U(signature.substr(kScalarSize)), kScalarSize, nullptr));
  const Bignum high(BN_new());
  if (!s || !high || BN_sub(high.get(), Order(), s.get()) != 1) return std::string(signature);
  return std::string(signature.substr(0, kScalarSize)) + Padded(high.get());
}

bool VerifyEs256(std::string_view public_point, std::string_view data, std::string_view signature) {
  if (signature.size() != 2 * kScalarSize || public_point.size() != kPointSize) return false;
  const Key pkey = FromParts(public_point, {});
  if (!pkey) return false;
  Signature parsed(ECDSA_SIG_new());
  Bignum r(BN_bin2bn(U(signature), kScalarSize, nullptr));
  Bignum s(BN_bin2bn(U(signature.substr(kScalarSize)), kScalarSize, nullptr));
  if (!s || BN_cmp(s.get(), HalfOrder()) > 0) return false;  // only the low-s form is ours
  if (!parsed || !r || ECDSA_SIG_set0(parsed.get(), r.get(), s.get()) != 1) return false;
  r.release();  // owned by the signature now
  s.release();
  unsigned char* der = nullptr;
  const int der_length = i2d_ECDSA_SIG(parsed.get(), &der);
  if (der_length <= 0) return false;
  const std::unique_ptr<unsigned char, void (*)(void*)> owned(der,
                                                              [](void* p) { OPENSSL_free(p); });
  const MdCtx md(EVP_MD_CTX_new());
  if (!md || EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, pkey.get()) != 1)
    return false;
  return EVP_DigestVerify(md.get(), der, static_cast<std::size_t>(der_length), U(data),
                          data.size()) == 1;
}

std::string SignCompactJws(std::string_view header_json, std::string_view payload_json,
                           const Es256Key& key) {
  std::string signing_input = Base64Url(header_json) + "." + Base64Url(payload_json);
  const std::string signature = SignEs256(key, signing_input);
  return signing_input + "." + Base64Url(signature);
}

std::optional<CompactJws> ReadCompactJws(std::string_view token) {
  const auto first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos)
    return std::nullopt;
  auto header = FromBase64Url(token.substr(0, first));
  auto payload = FromBase64Url(token.substr(first + 1, second - first - 1));
  auto signature = FromBase64Url(token.substr(second + 1));
  if (!header || !payload || !signature) return std::nullopt;
  return CompactJws{std::move(*header), std::move(*payload), std::string(token.substr(0, second)),
                    std::move(*signature)};
}

}  // namespace agentgate::crypto
