// The block structure CPython's parser requires of a whole file, checked on
// the tokens: the helion-py parser reads only kernels and skips other code
// by indentation, so without this a misplaced line (an `if` at column 0
// inside a kernel, a dedented `else`) silently changes which statements a
// kernel has instead of being the error Python reports.
#pragma once

#include <optional>
#include <vector>

#include "lexer.h"

namespace tessera::helion_py {

// The first place the tokens break Python's block structure: an indent that
// no block header asked for, a header (`if ...:`) with no indented block, an
// `elif` / `else` / `except` / `finally` that follows no statement it can
// continue, a `try` with neither `except` nor `finally`, a decorator that
// decorates nothing; and statements CPython's compiler refuses where they
// stand: `return` / `yield` outside a function, `break` / `continue`
// outside a loop (a kernel's `return` dedented to column 0).
std::optional<SourceError> CheckBlockStructure(
    const std::vector<Token>& tokens);

}  // namespace tessera::helion_py
