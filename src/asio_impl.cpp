// Asio and Beast compiled once for the whole program (separate compilation), so no other
// translation unit pays for their implementation headers.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
