#pragma once
// `make run`'s first-run experience: on an empty store, a demo org, env, token and an agent on the
// built-in offline model, created through the same use cases as the admin API.

#include "app/admin/admin_service.hpp"

#include <optional>
#include <string>

namespace agentgate {

struct DemoCredentials {
  std::string org_id;
  std::string env;
  std::string token;
  std::string agent_id;
};

// nullopt when the store already holds an organization (nothing is created then).
boost::asio::awaitable<Result<std::optional<DemoCredentials>>> ProvisionDemo(AdminService& admin,
                                                                             StoreRunner& store);

}  // namespace agentgate
