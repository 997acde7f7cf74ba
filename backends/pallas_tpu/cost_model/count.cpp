#include "count.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "fmt/format.h"

namespace tessera::pallas {
namespace {

bool IsIntegerLiteral(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// True when `text` must be parenthesized as a factor of a product: it has
// an operator outside brackets (`a + b`, `a // 8`), not a name, an index or
// a call (`x.shape[0]`, `pl.cdiv(x_d0, 128)`).
bool NeedsParens(const std::string& text) {
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth == 0 && (c == ' ' || c == '+' || c == '-' || c == '*' ||
                       c == '/' || c == '%')) {
      return true;
    }
  }
  return false;
}

std::string Factor(const std::string& text) {
  return NeedsParens(text) ? "(" + text + ")" : text;
}

}  // namespace

Count::Count(int64_t constant) {
  if (constant != 0) terms_[{}] = constant;
}

Count Count::Python(const std::string& text) {
  if (IsIntegerLiteral(text)) return Count(std::stoll(text));
  Count count;
  count.terms_[{text}] = 1;
  return count;
}

bool Count::is_constant() const {
  return terms_.empty() ||
         (terms_.size() == 1 && terms_.begin()->first.empty());
}

int64_t Count::constant() const {
  auto it = terms_.find({});
  return it == terms_.end() ? 0 : it->second;
}

double Count::StaticOr(double fallback) const {
  return is_constant() ? static_cast<double>(constant()) : fallback;
}

std::string Count::ToPython() const {
  std::string text;
  auto append = [&](const std::vector<std::string>& atoms, int64_t coeff) {
    const bool negative = coeff < 0;
    const int64_t magnitude = negative ? -coeff : coeff;
    std::string term;
    if (magnitude != 1 || atoms.empty()) term = fmt::format("{}", magnitude);
    // A lone atom after `+` needs no parentheses (`a % 8` binds tighter).
    const bool alone = atoms.size() == 1 && term.empty() && !negative;
    for (const std::string& atom : atoms) {
      term += (term.empty() ? "" : " * ") + (alone ? atom : Factor(atom));
    }
    if (text.empty()) {
      text = (negative ? "-" : "") + term;
    } else {
      text += (negative ? " - " : " + ") + term;
    }
  };
  for (const auto& [atoms, coeff] : terms_) {
    if (!atoms.empty()) append(atoms, coeff);
  }
  if (constant() != 0) append({}, constant());
  return text.empty() ? "0" : text;
}

Count& Count::operator+=(const Count& other) {
  for (const auto& [atoms, coeff] : other.terms_) {
    int64_t& sum = terms_[atoms];
    sum += coeff;
    if (sum == 0) terms_.erase(atoms);
  }
  return *this;
}

Count& Count::operator-=(const Count& other) {
  return *this += other * Count(-1);
}

Count& Count::operator*=(const Count& other) {
  Count product;
  for (const auto& [a_atoms, a_coeff] : terms_) {
    for (const auto& [b_atoms, b_coeff] : other.terms_) {
      std::vector<std::string> atoms = a_atoms;
      atoms.insert(atoms.end(), b_atoms.begin(), b_atoms.end());
      std::sort(atoms.begin(), atoms.end());
      product += [&] {
        Count term;
        term.terms_[atoms] = a_coeff * b_coeff;
        return term;
      }();
    }
  }
  terms_ = std::move(product.terms_);
  return *this;
}

std::optional<Count> Count::DividedExactly(int64_t b) const {
  Count quotient;
  for (const auto& [atoms, coeff] : terms_) {
    if (coeff % b != 0) return std::nullopt;
    quotient.terms_[atoms] = coeff / b;
  }
  return quotient;
}

Count CeilDiv(const Count& a, int64_t b) {
  if (b <= 1) return a;
  if (a.is_constant()) return Count((a.constant() + b - 1) / b);
  if (std::optional<Count> exact = a.DividedExactly(b)) return *exact;
  return Count::Python(fmt::format("pl.cdiv({}, {})", a.ToPython(), b));
}

Count FloorDiv(const Count& a, int64_t b) {
  if (b <= 1) return a;
  if (a.is_constant()) return Count(a.constant() / b);
  if (std::optional<Count> exact = a.DividedExactly(b)) return *exact;
  return Count::Python(fmt::format("{} // {}", Factor(a.ToPython()), b));
}

Count Mod(const Count& a, int64_t b) {
  if (b <= 1) return 0;
  if (a.is_constant()) return Count(a.constant() % b);
  if (a.DividedExactly(b)) return 0;
  return Count::Python(fmt::format("{} % {}", Factor(a.ToPython()), b));
}

Count RoundUp(const Count& a, int64_t b) {
  if (b <= 1) return a;
  return CeilDiv(a, b) * Count(b);
}

}  // namespace tessera::pallas
