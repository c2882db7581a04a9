#pragma once
// An agent's A2A card (docs/a2a.md, "The card"): who it is, where and how it is called, what it
// can do and how a caller authenticates. Pure.

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace agentgate::a2a {

struct CardFacts {
  std::string interface_url;  // <public_url>/a2a/{org}/{env}/{agent}/, with its trailing '/'
  std::string agent_id;
  std::string name;
  std::string description;
  int version = 0;                  // the deployed version
  bool structured = false;          // its answers keep to a schema: data is among its output modes
  std::string token_url;            // the built-in authorization server's token endpoint
  std::string oauth_metadata_url;   // its RFC 8414 metadata
  bool push_notifications = false;  // task push configs can be kept (a master key seals them)
};

// Both bindings at the one URL, protocol 1.0, and JSON-RPC for protocol 0.3 there too; streaming;
// push notifications where they are kept; no extended card; the agent as one skill; API keys as
// Bearer tokens, or OAuth client-credentials tokens with scope a2a.
boost::json::object AgentCard(const CardFacts& facts);

// 0.3's top-level fields (protocolVersion, url, preferredTransport), so a 0.3 client reads the
// same card; 1.0 readers leave them out, and so does the signature (added after it is made).
void AddLegacyFields(boost::json::object& card, const std::string& interface_url);

// The card as its signature covers it (the specification's §8.4.1, as the official SDKs compute
// it): without `signatures`, every empty string, array, object and null left out, keys sorted,
// no whitespace (RFC 8785; the card holds no numbers).
std::string CanonicalCard(const boost::json::object& card);

}  // namespace agentgate::a2a
