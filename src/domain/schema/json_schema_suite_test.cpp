// The validator against the JSON-Schema-Test-Suite's draft-07 cases for the supported keywords:
// every case whose schema CheckSchema accepts is run; the groups it refuses use keywords outside
// the subset ($ref, patternProperties, the array form of items, ...).
#include "domain/schema/json_schema.hpp"

#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace agentgate::schema {
namespace {

namespace json = boost::json;

struct SuiteFile {
  const char* name;
  int min_groups;  // groups of the file within the subset: a suite that shrank would pass empty
};

class JsonSchemaSuite : public ::testing::TestWithParam<SuiteFile> {};

TEST_P(JsonSchemaSuite, AgreesWithEveryCaseOfTheSupportedKeywords) {
  const std::string path = std::string(JSON_SCHEMA_SUITE_DIR) + "/" + GetParam().name + ".json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " (Debian's json-schema-test-suite; scripts/install-deps.sh)";
  std::stringstream text;
  text << in.rdbuf();
  const json::value groups = json::parse(text.str());
  int ran = 0, cases = 0;
  for (const auto& group : groups.as_array()) {
    const auto& schema = group.at("schema");
    if (!CheckSchema(schema, "schema")) continue;
    ++ran;
    for (const auto& test : group.at("tests").as_array()) {
      ++cases;
      const bool valid = Validate(schema, test.at("data")).empty();
      EXPECT_EQ(valid, test.at("valid").as_bool())
          << GetParam().name << ": " << group.at("description").as_string() << " / "
          << test.at("description").as_string();
    }
  }
  EXPECT_GE(ran, GetParam().min_groups) << GetParam().name;
  EXPECT_GT(cases, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Draft7, JsonSchemaSuite,
    ::testing::Values(SuiteFile{"type", 8}, SuiteFile{"properties", 2}, SuiteFile{"required", 3},
                      SuiteFile{"items", 3}, SuiteFile{"enum", 3}, SuiteFile{"const", 4},
                      SuiteFile{"anyOf", 6}, SuiteFile{"additionalProperties", 3},
                      SuiteFile{"minLength", 1}, SuiteFile{"maxLength", 1}, SuiteFile{"minimum", 1},
                      SuiteFile{"maximum", 1}, SuiteFile{"exclusiveMinimum", 1},
                      SuiteFile{"exclusiveMaximum", 1}, SuiteFile{"minItems", 1},
                      SuiteFile{"maxItems", 1}, SuiteFile{"boolean_schema", 2}),
    [](const ::testing::TestParamInfo<SuiteFile>& file) { return std::string(file.param.name); });

}  // namespace
}  // namespace agentgate::schema
