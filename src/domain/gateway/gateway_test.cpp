#include "domain/admin/admin_requests.hpp"
#include "domain/gateway/envelope.hpp"
#include "domain/gateway/gateway_request.hpp"
#include "domain/gateway/metadata_grant.hpp"
#include "domain/gateway/soap.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace agentgate {
namespace {

Result<GatewayCall> Normalize(const std::string& json) {
  return NormalizeGatewayRequest(boost::json::parse(json));
}

std::string FieldError(const std::string& json) {
  auto r = Normalize(json);
  EXPECT_FALSE(r) << json;
  return r ? "" : r.error().message;
}

}  // namespace

TEST(GatewayRequest, ResolvesTheThreePathForms) {
  auto relative = Normalize(R"({"method":"POST","path":"tooling/sobjects/ValidationRule",
    "metadata":{"FullName":"Account.R","Metadata":{"active":true}}})");
  ASSERT_TRUE(relative) << relative.error().message;
  EXPECT_EQ(relative->path, "/services/data/v64.0/tooling/sobjects/ValidationRule");
  EXPECT_EQ(relative->kind, GatewayCall::Kind::kRest);
  EXPECT_EQ(relative->body_json, R"({"FullName":"Account.R","Metadata":{"active":true}})");

  auto query = Normalize(
      R"({"method":"GET","path":"tooling/query?q=SELECT+Id+FROM+ValidationRule+WHERE+ValidationName='R'",
    "platformApiVersion":"v61.0"})");
  ASSERT_TRUE(query);
  EXPECT_EQ(query->path,
            "/services/data/v61.0/tooling/"
            "query?q=SELECT+Id+FROM+ValidationRule+WHERE+ValidationName='R'");
  EXPECT_FALSE(query->body_json);

  auto full = Normalize(R"({"method":"get","path":"/services/data/v64.0/sobjects"})");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->method, "GET");
  EXPECT_EQ(full->path, "/services/data/v64.0/sobjects");

  auto mdapi =
      Normalize(R"({"method":"DELETE","path":"mdapi/CustomField/Account.Legacy_Code__c"})");
  ASSERT_TRUE(mdapi);
  EXPECT_EQ(mdapi->kind, GatewayCall::Kind::kDeleteMetadata);
  EXPECT_EQ(mdapi->metadata_type, "CustomField");
  EXPECT_EQ(mdapi->full_name, "Account.Legacy_Code__c");
  EXPECT_EQ(mdapi->path, "/services/Soap/m/64.0");
  auto layout = Normalize(R"({"method":"DELETE","path":"mdapi/Layout/Account-Account%20Layout"})");
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->full_name, "Account-Account Layout");
}

TEST(GatewayRequest, MetadataWinsOverItsAliasPayload) {
  auto both = Normalize(
      R"({"method":"PATCH","path":"tooling/sobjects/ValidationRule/03d1","metadata":{"a":1},"payload":{"b":2}})");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->body_json, R"({"a":1})");
  auto alias = Normalize(
      R"({"method":"PATCH","path":"tooling/sobjects/ValidationRule/03d1","payload":{"b":2}})");
  ASSERT_TRUE(alias);
  EXPECT_EQ(alias->body_json, R"({"b":2})");
  EXPECT_NE(FieldError(R"({"method":"POST","path":"x","payload":[1]})").find("'payload'"),
            std::string::npos);
}

TEST(GatewayRequest, ValidatesMethodVersionAndFields) {
  EXPECT_NE(FieldError(R"({"method":"HEAD","path":"sobjects"})").find("'method'"),
            std::string::npos);
  EXPECT_NE(FieldError(R"({"path":"sobjects"})").find("'method'"), std::string::npos);
  EXPECT_NE(FieldError(R"({"method":"GET"})").find("'path'"), std::string::npos);
  EXPECT_NE(FieldError(R"({"method":"GET","path":""})").find("'path'"), std::string::npos);
  for (const char* bad : {"64", "64.", "v", "64.0.1", "sixty", "64.00", "x64.0", ".5"}) {
    EXPECT_NE(
        FieldError(std::string(R"({"method":"GET","path":"sobjects","platformApiVersion":")") +
                   bad + "\"}")
            .find("'platformApiVersion'"),
        std::string::npos)
        << bad;
  }
  EXPECT_NE(
      FieldError(R"({"method":"GET","path":"mdapi/CustomField/Account.X__c"})").find("'method'"),
      std::string::npos);
  EXPECT_NE(FieldError(R"({"method":"DELETE","path":"mdapi/CustomField"})").find("'path'"),
            std::string::npos);
  EXPECT_NE(FieldError(R"({"method":"GET","path":"sobjects","extra":1})").find("'extra'"),
            std::string::npos);
}

TEST(GatewayRequest, RefusesEveryPathThatCouldLeaveTheServicesTree) {
  const char* hostile[] = {
      "../../identity",
      "tooling/../../../secret",
      "tooling/%2e%2e/%2E%2E/x",
      "tooling/%2e%2e%2fx",
      "/services/../../etc/passwd",
      "/services/data/./v64.0",
      "https://evil.example/services/data",
      "http://169.254.169.254/latest",
      "//evil.example/services/data",
      "/apex/SomePage",
      "/services\\..\\x",
      "tooling\\sobjects",
      "sobjects\r\nHost: evil.example",
      "sobjects%0d%0aX-Injected: 1",
      "sobjects#fragment",
      "sobjects with space",
      "tooling//sobjects",
      "tooling/%zz",
      "tooling/%5c..",
      "mdapi/CustomField/Account%2f..%2fx",
      // What the HTTP client's URL parser refuses is refused here, naming the path.
      "tooling/query?q=100%",
      "tooling/query?q=50%off",
      "sobjects/Caf\xc3\xa9__c",
      "tooling/query?q=SELECT \"Id\"",
      "tooling/query?q=<script>",
      "tooling/query?q={x}",
      "tooling/query?q=a|b",
      "tooling/query?q=a^b",
      "tooling/query?q=a`b",
      // Double-encoded dots, and dots behind a path parameter.
      "tooling/%252e%252e/secret",
      "tooling/..;jsessionid=x/secret",
      "tooling/.;x/sobjects",
  };
  for (const char* path : hostile) {
    boost::json::object body{{"method", "GET"}, {"path", path}};
    if (std::string_view(path).starts_with("mdapi/")) body["method"] = "DELETE";
    auto r = NormalizeGatewayRequest(body);
    EXPECT_FALSE(r) << "accepted: " << path << " -> " << (r ? r->path : "");
    if (!r) {
      EXPECT_NE(r.error().message.find("'path'"), std::string::npos) << path;
    }
  }
  EXPECT_FALSE(UnsafePathReason("tooling/query?q=SELECT+Id+FROM+X+WHERE+Name+LIKE+'%25__c'"));
  EXPECT_FALSE(UnsafePathReason("tooling/query?q=SELECT+Id,Name+FROM+Account+WHERE+Id=:x@y"));
  EXPECT_FALSE(UnsafePathReason("sobjects/Account/001;x=1/describe"));  // a parameter on a name
  EXPECT_EQ(UnsafePathReason("tooling/query?q=100%"),
            "a '%' that does not start an escape (%XX) must be written %25");
}

TEST(Soap, BuildsTheDeleteMetadataEnvelopeWithEscapedValues) {
  const auto xml = soap::DeleteMetadataEnvelope("00D!tok<en>", "CustomField", "Account.A&B__c");
  EXPECT_NE(xml.find("<met:sessionId>00D!tok&lt;en&gt;</met:sessionId>"), std::string::npos);
  EXPECT_NE(
      xml.find("<met:type>CustomField</met:type><met:fullNames>Account.A&amp;B__c</met:fullNames>"),
      std::string::npos);
}

TEST(Soap, ParsesResultsAndFaultsByNamespaceNotPrefix) {
  auto ok = soap::ParseDeleteMetadataResponse(
      R"(<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns="http://soap.sforce.com/2006/04/metadata"><soapenv:Body><deleteMetadataResponse><result><fullName>Account.Legacy_Code__c</fullName><success>true</success></result></deleteMetadataResponse></soapenv:Body></soapenv:Envelope>)");
  ASSERT_TRUE(ok);
  EXPECT_TRUE(ok->success);
  EXPECT_EQ(ok->platform_response.at("fullName"), "Account.Legacy_Code__c");
  EXPECT_TRUE(ok->platform_response.at("errors").as_array().empty());

  auto failed = soap::ParseDeleteMetadataResponse(
      R"(<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><m:deleteMetadataResponse xmlns:m="http://soap.sforce.com/2006/04/metadata"><m:result><m:errors><m:message>no CustomField named Account.Nope__c found</m:message><m:statusCode>INVALID_CROSS_REFERENCE_KEY</m:statusCode></m:errors><m:fullName>Account.Nope__c</m:fullName><m:success>false</m:success></m:result></m:deleteMetadataResponse></S:Body></S:Envelope>)");
  ASSERT_TRUE(failed);
  EXPECT_FALSE(failed->success);
  EXPECT_EQ(failed->platform_response.at("errors").at(0).at("statusCode"),
            "INVALID_CROSS_REFERENCE_KEY");

  auto fault = soap::ParseDeleteMetadataResponse(
      R"(<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:sf="http://soap.sforce.com/2006/04/metadata"><soapenv:Body><soapenv:Fault><faultcode>sf:INVALID_SESSION_ID</faultcode><faultstring>INVALID_SESSION_ID: Invalid Session ID found in SessionHeader: Illegal Session</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>)");
  ASSERT_TRUE(fault);
  EXPECT_TRUE(fault->invalid_session);
  EXPECT_EQ(fault->platform_response.at("faultcode"), "sf:INVALID_SESSION_ID");

  // The right local names under the wrong namespace are not a SOAP answer.
  EXPECT_FALSE(soap::ParseDeleteMetadataResponse(
      R"(<soapenv:Envelope xmlns:soapenv="urn:not-soap"><soapenv:Body/></soapenv:Envelope>)"));
  EXPECT_FALSE(soap::ParseDeleteMetadataResponse("not xml at all"));
  EXPECT_FALSE(soap::ParseDeleteMetadataResponse(""));
}

TEST(GatewayEnvelope, RendersThePlatformsAnswer) {
  EXPECT_EQ(PlatformResponseOf(204, ""), boost::json::object{});
  EXPECT_TRUE(
      PlatformResponseOf(400, R"([{"message":"bad","errorCode":"MALFORMED_QUERY"}])").is_array());
  EXPECT_EQ(PlatformResponseOf(500, "<html>oops</html>").at("raw"), "<html>oops</html>");
  // Deeper than Boost.JSON's default 32 levels is still the platform's JSON...
  const std::string deep = std::string(200, '[') + "1" + std::string(200, ']');
  EXPECT_TRUE(PlatformResponseOf(200, deep).is_array());
  // ...and past any sane depth, or not UTF-8, it is raw text the writer makes valid.
  const std::string abyss = std::string(5000, '[') + std::string(5000, ']');
  EXPECT_EQ(PlatformResponseOf(200, abyss).at("raw").as_string().size(), 10000u);
  EXPECT_TRUE(PlatformResponseOf(200, "{\"name\":\"caf\xe9\"}").as_object().contains("raw"));
  GatewayEnvelope e{true, 201, "/services/data/v64.0/tooling/sobjects/ValidationRule",
                    boost::json::object{{"id", "03d1"}}, std::string("abc")};
  const auto out = RenderEnvelope(e);
  EXPECT_EQ(out.at("platformRequestId"), "abc");
  e.platform_request_id.reset();
  EXPECT_FALSE(RenderEnvelope(e).contains("platformRequestId"));
}

}  // namespace agentgate

namespace agentgate {

TEST(MetadataGrant, ReadsNeedReadOrWriteAndEveryOtherCallNeedsWrite) {
  auto call = [](const std::string& json) {
    return *NormalizeGatewayRequest(boost::json::parse(json));
  };
  const GatewayCall get = call(R"({"method": "GET", "path": "tooling/sobjects/ValidationRule"})");
  const GatewayCall post =
      call(R"({"method": "POST", "path": "tooling/sobjects/ValidationRule", "metadata": {}})");
  const GatewayCall drop =
      call(R"({"method": "DELETE", "path": "mdapi/CustomField/Account.Legacy_Code__c"})");
  using gateway::MissingMetadataPermission;
  const std::vector<std::string> none, read{"metadata_read"}, write{"metadata_write"};
  EXPECT_EQ(MissingMetadataPermission(none, get), "metadata_read");
  EXPECT_EQ(MissingMetadataPermission(none, post), "metadata_write");
  EXPECT_EQ(MissingMetadataPermission(read, get), std::nullopt);
  EXPECT_EQ(MissingMetadataPermission(read, post), "metadata_write");
  EXPECT_EQ(MissingMetadataPermission(read, drop), "metadata_write");
  EXPECT_EQ(MissingMetadataPermission(write, get), std::nullopt);  // write implies read
  EXPECT_EQ(MissingMetadataPermission(write, post), std::nullopt);
  EXPECT_EQ(MissingMetadataPermission(write, drop), std::nullopt);
  EXPECT_EQ(MissingMetadataPermission({"chat"}, get), "metadata_read");
}

TEST(AdminRequestsEnvironmentGrants, AcceptOnlyMetadataPermissionsInOrderOnce) {
  auto parse = [](const std::string& json) {
    return ParsePutEnvironmentGrant(boost::json::parse(json));
  };
  auto both = parse(
      R"({"token_id": "t", "permissions": ["metadata_write", "metadata_read", "metadata_write"]})");
  ASSERT_TRUE(both) << both.error().message;
  EXPECT_EQ(both->permissions, (std::vector<std::string>{"metadata_read", "metadata_write"}));
  auto revoke = parse(R"({"token_id": "t", "permissions": []})");
  ASSERT_TRUE(revoke);
  EXPECT_TRUE(revoke->permissions.empty());
  auto chat = parse(R"({"token_id": "t", "permissions": ["chat"]})");
  ASSERT_FALSE(chat);
  EXPECT_NE(chat.error().message.find("'permissions[0]'"), std::string::npos);
  EXPECT_FALSE(parse(R"({"permissions": []})"));
  EXPECT_FALSE(parse(R"({"token_id": "t", "permissions": "metadata_read"})"));
  EXPECT_FALSE(parse(R"({"token_id": "t", "permissions": [], "env": "prod"})"));
}

}  // namespace agentgate
