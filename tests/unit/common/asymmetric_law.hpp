#pragma once
// A stribeck-asymmetric law (exact sign, viscous term) whose static force is
// 25 N forward and 30 N backward, as [friction.params] lines: the stiction
// tests pull it both ways so that each direction's breakaway binds once.
namespace stribeck::test {

inline constexpr const char* kAsymmetricStictionLaw =
    "[friction.params]\n"
    "F_C_pos = 20.0\nF_s_pos = 25.0\nf_v_pos = 100.0\n"
    "F_C_neg = 22.0\nF_s_neg = 30.0\nf_v_neg = 100.0\n";

}  // namespace stribeck::test
