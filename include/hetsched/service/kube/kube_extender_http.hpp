// KubeExtenderHttp: the extender's HTTP face. It mounts POST <prefix>/filter,
// <prefix>/prioritize, <prefix>/bind and GET <prefix>/healthz on a cpp-httplib
// server — its own (`hetsched kube-extender`) or another one, such as `hetsched
// serve` mounting it under "/extender". Bodies over the size limit get 413, other
// content types than JSON 415; every answer is JSON.
#pragma once

#include <cstddef>
#include <string>

namespace httplib {
class Server;
}

namespace hetsched {

class KubeExtender;

inline constexpr std::size_t kDefaultExtenderBodyLimit = 64u << 20;  // a 5000-node NodeList fits

class KubeExtenderHttp {
 public:
  // The extender must outlive the handlers (and so the server they are mounted on).
  explicit KubeExtenderHttp(KubeExtender& extender,
                            std::size_t max_body_bytes = kDefaultExtenderBodyLimit)
      : extender_(&extender), max_body_bytes_(max_body_bytes) {}

  // Registers the four routes under prefix ("" or "/extender").
  void mount(httplib::Server& server, const std::string& prefix = "") const;

 private:
  KubeExtender* extender_;
  std::size_t max_body_bytes_;
};

}  // namespace hetsched
