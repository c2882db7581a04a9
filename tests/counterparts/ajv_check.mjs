// Reads a JSON file of [{schema, value}] and prints, as a JSON array, whether ajv (JSON Schema
// 2020-12 mode, pinned) finds each value valid against its schema: the answer-schema validator's
// cross-check (tests/integration/answer_schema_ajv_test.cpp).
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: false });
const verdicts = cases.map(({ schema, value }) => ajv.validate(schema, value));
process.stdout.write(JSON.stringify(verdicts));
