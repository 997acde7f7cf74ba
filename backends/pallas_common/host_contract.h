// The generated host function's contract with its callers: signature,
// rank-generic parameters and trace-time checks (host_contract.cpp).
#pragma once

#include <map>
#include <set>
#include <string>

#include "python_writer.h"
#include "tessera/ir/ir.h"
#include "tessera/pipeline_info.h"

namespace tessera::pallas {

// "x, y, squared=True, eps=1e-05, ": parameters with their defaults
// (`defaults`) and compile-time parameters in their place
// (`static_params`), whose checks against the compiled value go to
// `static_checks`.
std::string HostParameters(const Function& host, PyLines& static_checks);

// Rank-generic parameters (`rank_generic`: `p:k`) accept any rank >= k:
// their leading dims are collapsed into one. `caller_shapes` receives, for
// each parameter a result takes the shape of (`result_shapes`), the name
// that holds its shape as passed.
void EmitRankCollapse(const Function& host, NameTable& names, PyLines& out,
                      std::map<std::string, std::string>& caller_shapes);

// The frontend's `shape_checks` as trace-time ValueErrors.
void EmitShapeChecks(const Function& host, PyLines& out);

// Trace-time guards of what the module was compiled for: the dtype, rank
// (trailing dims when rank-generic) and static dims of each ref parameter
// whose type the compile was given (`typed_params`), so a call at another
// signature raises instead of computing for the compiled one. `where` names the
// kernel's line ("add.py:17"). Returns the definition of the module-level
// helper the guards call ("" when the kernel has no ref parameter); its name is
// taken from `names`.
std::string EmitParamGuards(
    const Function& host, std::string_view where,
    const std::map<std::string, std::set<std::string>>& typed_params,
    NameTable& names, PyLines& out);

// EmitOptions::typed_params of a pipeline: the parameters its kernel
// specializations (config `[kernels.NAME.args]`, --arg) give types.
std::map<std::string, std::set<std::string>> TypedParams(
    const PipelineInfo& pipeline);

}  // namespace tessera::pallas
