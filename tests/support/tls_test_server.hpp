#pragma once
// A minimal HTTPS server for client tests: a self-signed certificate for "localhost" made with
// the openssl CLI, and a fixed JSON answer to every request.

#include <memory>
#include <string>

namespace agentgate::testing {

class TlsTestServer {
 public:
  // Writes cert.pem/key.pem into `dir` and listens on 127.0.0.1 (port chosen by the OS), served
  // by its own thread. Removes `dir` when destroyed.
  explicit TlsTestServer(const std::string& dir);
  ~TlsTestServer();
  unsigned short port() const;
  const std::string& certificate_file() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace agentgate::testing
