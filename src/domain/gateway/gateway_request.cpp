#include "domain/gateway/gateway_request.hpp"

#include "domain/json_fields.hpp"
#include "domain/json_text.hpp"
#include "domain/url_encoding.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace agentgate {
namespace {

namespace jf = json_fields;

constexpr std::string_view kDefaultVersion = "64.0";
constexpr std::array<std::string_view, 5> kMethods{"GET", "POST", "PATCH", "PUT", "DELETE"};

Result<std::string> Version(const boost::json::object& o) {
  AG_TRY(auto given, jf::OptionalString(o, "platformApiVersion", ""));
  std::string v = given.value_or(std::string(kDefaultVersion));
  if (!v.empty() && (v[0] == 'v' || v[0] == 'V')) v.erase(0, 1);
  const auto dot = v.find('.');
  const bool digits_before =
      dot != std::string::npos && dot > 0 &&
      std::all_of(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(dot),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (!digits_before || v.size() != dot + 2 ||
      !std::isdigit(static_cast<unsigned char>(v[dot + 1]))) {
    return InvalidField("platformApiVersion", "must look like 64.0 or v64.0");
  }
  return v;
}

// RFC 3986's characters of a path and query: unreserved, sub-delims, ':', '@', '/', '?' and '%'
// (which must start an escape). Anything else the HTTP client's URL parser would refuse.
bool IsUrlCharacter(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::string_view("-._~!$&'()*+,;=:@/?%").find(c) != std::string_view::npos;
}

bool IsHex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// "." or "..", also behind a path parameter ("..;jsessionid=x"), which some servers ignore.
bool IsDotSegment(std::string_view segment) {
  segment = segment.substr(0, segment.find(';'));
  return segment == "." || segment == "..";
}

}  // namespace

std::optional<std::string> UnsafePathReason(std::string_view path) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return "control characters (CR, LF, ...) are not allowed";
    if (c == ' ') return "spaces must be percent-encoded";
    if (c == '\\') return "backslashes are not allowed";
    if (c == '#') return "fragments are not allowed";
    if (u >= 0x80) return "non-ASCII characters must be percent-encoded (UTF-8)";
    if (!IsUrlCharacter(c)) return std::string("the character '") + c + "' must be percent-encoded";
    if (c == '%' && (i + 2 >= path.size() || !IsHex(path[i + 1]) || !IsHex(path[i + 2])))
      return "a '%' that does not start an escape (%XX) must be written %25";
  }
  if (path.find("://") != std::string_view::npos)
    return "a scheme or host is not allowed; give a path";
  const std::string_view before_query = path.substr(0, path.find('?'));
  if (before_query.starts_with("//")) return "a host is not allowed; give a path";
  const auto decoded = PercentDecode(before_query, false);
  if (!decoded) return "a malformed percent-escape";
  for (char c : *decoded) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\')
      return "encoded control characters or backslashes are not allowed";
  }
  // Any "." or ".." segment, raw or encoded, could climb out of /services/.
  std::size_t start = 0;
  while (start <= decoded->size()) {
    const auto slash = decoded->find('/', start);
    const std::string_view segment = std::string_view(*decoded).substr(
        start, slash == std::string::npos ? std::string::npos : slash - start);
    // Decoded once more too: "%252e%252e" is ".." to a server that decodes twice.
    const auto twice = PercentDecode(segment, false);
    if (IsDotSegment(segment) || (twice && IsDotSegment(*twice)))
      return "'.' and '..' segments are not allowed";
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (decoded->find("//") != std::string::npos) return "empty path segments are not allowed";
  return std::nullopt;
}

Result<GatewayCall> NormalizeGatewayRequest(const boost::json::value& body) {
  AG_TRY(const boost::json::object* o, jf::AsObject(body, ""));
  AG_TRYV(jf::RejectUnknownKeys(*o, "",
                                {"method", "path", "platformApiVersion", "metadata", "payload"}));
  GatewayCall call;
  AG_TRY(call.method, jf::RequiredString(*o, "method", ""));
  std::transform(call.method.begin(), call.method.end(), call.method.begin(), [](char c) {
    return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  });
  if (std::find(kMethods.begin(), kMethods.end(), call.method) == kMethods.end()) {
    return InvalidField("method", "must be one of GET, POST, PATCH, PUT, DELETE");
  }
  AG_TRY(std::string path, jf::RequiredString(*o, "path", ""));
  if (path.empty()) return InvalidField("path", "is required");
  AG_TRY(call.api_version, Version(*o));

  // `metadata` wins over its alias `payload` when both are present.
  const boost::json::value* metadata = o->if_contains("metadata");
  if (metadata == nullptr || metadata->is_null()) metadata = o->if_contains("payload");
  if (metadata != nullptr && !metadata->is_null()) {
    const char* field =
        o->contains("metadata") && !o->at("metadata").is_null() ? "metadata" : "payload";
    if (!metadata->is_object()) return InvalidField(field, "must be a JSON object");
    if (call.method == "POST" || call.method == "PATCH" || call.method == "PUT") {
      call.body_json = json_text::Write(*metadata);
    }
  }

  if (auto reason = UnsafePathReason(path)) return InvalidField("path", *reason);
  if (path.starts_with("mdapi/") || path.starts_with("/mdapi/")) {
    if (call.method != "DELETE") {
      return InvalidField("method", "mdapi/ paths delete through the Metadata API; use DELETE");
    }
    const std::string rest = path.substr(path.find("mdapi/") + 6);
    const auto slash = rest.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 >= rest.size()) {
      return InvalidField("path", "must be mdapi/<MetadataType>/<FullName>");
    }
    call.metadata_type = rest.substr(0, slash);
    if (!std::all_of(call.metadata_type.begin(), call.metadata_type.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        })) {
      return InvalidField("path", "the metadata type must be letters, digits and _");
    }
    const auto full_name = PercentDecode(rest.substr(slash + 1), false);
    if (!full_name || full_name->empty() || full_name->find('/') != std::string::npos ||
        full_name->find('?') != std::string::npos) {
      return InvalidField("path", "the full name must be one name such as Account.Field__c");
    }
    call.kind = GatewayCall::Kind::kDeleteMetadata;
    call.full_name = *full_name;
    call.path = "/services/Soap/m/" + call.api_version;
    return call;
  }
  if (path.starts_with("/")) {
    if (!path.starts_with("/services/")) return InvalidField("path", "must stay under /services/");
    call.path = path;
  } else {
    call.path = "/services/data/v" + call.api_version + "/" + path;
  }
  return call;
}

}  // namespace agentgate
