#include "domain/a2a/agent_card.hpp"

#include "domain/a2a/protocol.hpp"
#include "domain/json_text.hpp"

#include <boost/json/array.hpp>

namespace agentgate::a2a {

namespace json = boost::json;

namespace {

constexpr const char* kBearerScheme = "agentgateApiKey";
constexpr const char* kOAuthScheme = "agentgateOAuth";

json::object Interface(const std::string& url, std::string_view binding) {
  return json::object{
      {"url", url}, {"protocolBinding", binding}, {"protocolVersion", kProtocolVersion}};
}

// The value without its empty members (null when nothing is left of it).
json::value WithoutEmpty(const json::value& v) {
  if (v.is_null() || (v.is_string() && v.get_string().empty())) return nullptr;
  if (v.is_array()) {
    json::array kept;
    for (const auto& item : v.get_array()) {
      json::value cleaned = WithoutEmpty(item);
      if (!cleaned.is_null()) kept.push_back(std::move(cleaned));
    }
    return kept.empty() ? json::value(nullptr) : json::value(std::move(kept));
  }
  if (v.is_object()) {
    json::object kept;
    for (const auto& [key, item] : v.get_object()) {
      json::value cleaned = WithoutEmpty(item);
      if (!cleaned.is_null()) kept[key] = std::move(cleaned);
    }
    return kept.empty() ? json::value(nullptr) : json::value(std::move(kept));
  }
  return v;
}

}  // namespace

void AddLegacyFields(json::object& card, const std::string& interface_url) {
  card["protocolVersion"] = "0.3.0";
  card["url"] = interface_url;
  card["preferredTransport"] = "JSONRPC";
}

std::string CanonicalCard(const json::object& card) {
  json::object unsigned_card = card;
  unsigned_card.erase("signatures");
  const json::value cleaned = WithoutEmpty(unsigned_card);
  return cleaned.is_null() ? "{}" : json_text::WriteCanonical(cleaned);
}

json::object AgentCard(const CardFacts& facts) {
  const std::string description = facts.description.empty() ? facts.name : facts.description;
  json::array output_modes{"text/plain"};
  if (facts.structured) output_modes.emplace_back("application/json");
  json::object skill{{"id", facts.agent_id},
                     {"name", facts.name.empty() ? facts.agent_id : facts.name},
                     {"description", description},
                     {"tags", json::array{facts.agent_id}}};
  json::object bearer{
      {"httpAuthSecurityScheme",
       json::object{{"scheme", "Bearer"},
                    {"description",
                     "An agentgate API key (agk_...) of this organization and environment, with "
                     "the chat permission on this agent"}}}};
  json::object oauth{
      {"oauth2SecurityScheme",
       json::object{
           {"description",
            "An access token of the built-in authorization server (client credentials of an OAuth "
            "client of this organization and environment), scope a2a"},
           {"flows",
            json::object{{"clientCredentials",
                          json::object{{"tokenUrl", facts.token_url},
                                       {"scopes", json::object{{"a2a", "Call this agent"}}}}}}},
           {"oauth2MetadataUrl", facts.oauth_metadata_url}}}};
  json::array requirements{
      json::object{
          {"schemes", json::object{{kBearerScheme, json::object{{"list", json::array{}}}}}}},
      json::object{
          {"schemes", json::object{{kOAuthScheme, json::object{{"list", json::array{"a2a"}}}}}}}};
  return json::object{
      {"name", facts.name.empty() ? facts.agent_id : facts.name},
      {"description", description},
      {"supportedInterfaces", json::array{Interface(facts.interface_url, "JSONRPC"),
                                          Interface(facts.interface_url, "HTTP+JSON"),
                                          json::object{{"url", facts.interface_url},
                                                       {"protocolBinding", "JSONRPC"},
                                                       {"protocolVersion", "0.3"}}}},
      {"version", std::to_string(facts.version)},
      {"capabilities", json::object{{"streaming", true},
                                    {"pushNotifications", facts.push_notifications},
                                    {"extendedAgentCard", false}}},
      {"securitySchemes",
       json::object{{kBearerScheme, std::move(bearer)}, {kOAuthScheme, std::move(oauth)}}},
      {"securityRequirements", std::move(requirements)},
      {"defaultInputModes", json::array{"text/plain", "application/json"}},
      {"defaultOutputModes", std::move(output_modes)},
      {"skills", json::array{std::move(skill)}}};
}

}  // namespace agentgate::a2a
