#pragma once
// An agent's A2A card (docs/a2a.md, "The card"): who it is, where and how it is called, what it
// can do and how a caller authenticates. Pure.

#include <boost/json/object.hpp>

#include <string>

namespace agentgate::a2a {

struct CardFacts {
  std::string interface_url;  // <public_url>/a2a/{org}/{env}/{agent}/, with its trailing '/'
  std::string agent_id;
  std::string name;
  std::string description;
  int version = 0;          // the deployed version
  bool structured = false;  // its answers keep to a schema: data is among its output modes
};

// Both bindings at the one URL, protocol 1.0; streaming; no push notifications and no extended
// card; the agent as one skill; API keys as Bearer tokens.
boost::json::object AgentCard(const CardFacts& facts);

}  // namespace agentgate::a2a
