// Parses every .cls under the given folder with the Apex grammar; exits 1 on any syntax error.
const fs = require("fs");
const path = require("path");
const { ApexParserFactory, ApexErrorListener } = require("@apexdevtools/apex-parser");

class Collect extends ApexErrorListener {
  constructor(file) {
    super();
    this.file = file;
    this.errors = [];
  }
  apexSyntaxError(line, column, message) {
    this.errors.push(`${this.file}:${line}:${column}: ${message}`);
  }
}

function classes(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return classes(full);
    return entry.name.endsWith(".cls") ? [full] : [];
  });
}

const files = classes(process.argv[2]);
let errors = [];
for (const file of files) {
  const listener = new Collect(file);
  const { parser } = ApexParserFactory.createLexerAndParser(fs.readFileSync(file, "utf8"), listener);
  parser.compilationUnit();
  errors = errors.concat(listener.errors);
}
if (files.length === 0) errors.push("no Apex classes found");
for (const e of errors) console.error(e);
console.log(`apex: ${files.length} classes parsed, ${errors.length} syntax errors`);
process.exit(errors.length === 0 ? 0 : 1);
