#include "domain/gateway/soap.hpp"

#include <pugixml.hpp>

#include <cstring>

namespace agentgate::soap {
namespace {

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string_view LocalName(const pugi::xml_node& node) {
  std::string_view name = node.name();
  const auto colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

// The namespace URI of an element: its prefix's (or the default) xmlns declaration in scope.
std::string_view NamespaceOf(const pugi::xml_node& node) {
  std::string_view name = node.name();
  const auto colon = name.find(':');
  const std::string attribute =
      colon == std::string_view::npos ? "xmlns" : "xmlns:" + std::string(name.substr(0, colon));
  for (pugi::xml_node n = node; n; n = n.parent()) {
    if (auto a = n.attribute(attribute.c_str())) return a.value();
  }
  return "";
}

bool Is(const pugi::xml_node& node, std::string_view ns, std::string_view local) {
  return node.type() == pugi::node_element && LocalName(node) == local && NamespaceOf(node) == ns;
}

pugi::xml_node Child(const pugi::xml_node& parent, std::string_view local) {
  for (auto c : parent.children()) {
    if (c.type() == pugi::node_element && LocalName(c) == local) return c;
  }
  return {};
}

std::string Text(const pugi::xml_node& parent, std::string_view local) {
  return Child(parent, local).text().get();
}

}  // namespace

std::string DeleteMetadataEnvelope(std::string_view session_id, std::string_view type,
                                   std::string_view full_name) {
  return std::string(
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
             "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" "
             "xmlns:met=\"http://soap.sforce.com/2006/04/metadata\">"
             "<soapenv:Header><met:SessionHeader><met:sessionId>") +
         Escape(session_id) +
         "</met:sessionId></met:SessionHeader></soapenv:Header>"
         "<soapenv:Body><met:deleteMetadata><met:type>" +
         Escape(type) + "</met:type><met:fullNames>" + Escape(full_name) +
         "</met:fullNames></met:deleteMetadata></soapenv:Body></soapenv:Envelope>";
}

std::optional<DeleteOutcome> ParseDeleteMetadataResponse(std::string_view xml) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size(), pugi::parse_default)) return std::nullopt;
  const auto envelope = doc.document_element();
  if (!Is(envelope, kEnvelopeNs, "Envelope")) return std::nullopt;
  pugi::xml_node body;
  for (auto c : envelope.children()) {
    if (Is(c, kEnvelopeNs, "Body")) body = c;
  }
  if (!body) return std::nullopt;
  for (auto c : body.children()) {
    if (Is(c, kEnvelopeNs, "Fault")) {
      DeleteOutcome out;
      const std::string code = Text(c, "faultcode");
      out.platform_response =
          boost::json::object{{"faultcode", code}, {"faultstring", Text(c, "faultstring")}};
      const auto colon = code.find(':');
      out.invalid_session =
          (colon == std::string::npos ? code : code.substr(colon + 1)) == "INVALID_SESSION_ID";
      return out;
    }
    if (Is(c, kMetadataNs, "deleteMetadataResponse")) {
      const auto result = Child(c, "result");
      if (!result) return std::nullopt;
      DeleteOutcome out;
      out.success = std::strcmp(Child(result, "success").text().get(), "true") == 0;
      boost::json::array errors;
      for (auto e : result.children()) {
        if (e.type() != pugi::node_element || LocalName(e) != "errors") continue;
        errors.push_back(boost::json::object{{"statusCode", Text(e, "statusCode")},
                                             {"message", Text(e, "message")}});
      }
      out.platform_response = boost::json::object{{"fullName", Text(result, "fullName")},
                                                  {"success", out.success},
                                                  {"errors", std::move(errors)}};
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace agentgate::soap
