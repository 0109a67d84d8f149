#pragma once
// Errors caused by what the user gave us (files, parameters, configs). The
// message is one line that names what is wrong and where; the CLI prints it
// and exits non-zero. Anything else that escapes is a bug.
#include <stdexcept>
#include <string>

namespace stribeck::data {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace stribeck::data
