// The module-level Python helpers that handle ragged dims, shared by every
// Pallas target: zero padding of host arrays up to whole blocks, rounding a
// size up, and masking the tail of a ragged tile inside the kernel.
#pragma once

#include <string>

#include "python_writer.h"

namespace tessera::pallas {

// The helper function names a module uses; empty: that helper is not used.
struct TailHelperNames {
  std::string round_up_fn;
  std::string pad_fn;
  std::string mask_fn;
  std::string shift_mask_fn;
};

// Appends the used helpers (each preceded by two blank lines) to `out`.
void EmitTailHelpers(const TailHelperNames& names, PyLines& out);

}  // namespace tessera::pallas
