// The launcher-dependent part of a KernelPlan: the grid's dimension
// semantics and, for each inner tile loop, what the launcher streams and
// keeps in VMEM:
//   unroll         nothing: operands keep their outer blocks, values live in
//                  registers;
//   emit_pipeline  a scratch per carried value, and each streamed ref's
//                  block double-buffered by the pipeline;
//   fori_loop      DMA semaphores, and each streamed ref's block in one slot
//                  (two with prefetch).
#include "kernel_plan.h"

#include "tessera/ir/types.h"

namespace tessera::pallas {
namespace {

LoopBuffer CarriedBuffer(const Value& iter_arg, int index) {
  LoopBuffer buffer;
  buffer.kind = LoopBuffer::Kind::kCarried;
  buffer.iter_arg_index = index;
  buffer.dtype = iter_arg.type.dtype;
  const bool scalar = !iter_arg.type.is_tensor() || iter_arg.type.shape.empty();
  if (scalar) {
    buffer.shape = {1, 1};  // a scalar carry is a (1, 1) array
  } else {
    for (const Dim& dim : iter_arg.type.shape) {
      buffer.shape.push_back(dim.is_static() ? dim.size : -1);
    }
  }
  return buffer;
}

LoopBuffer StreamedBlock(const KernelPlan& plan, int ref_index,
                         int64_t copies) {
  const RefPlan& ref = plan.refs[ref_index];
  LoopBuffer buffer;
  buffer.kind = LoopBuffer::Kind::kStreamedBlock;
  buffer.ref_index = ref_index;
  buffer.shape = StreamBlockShape(plan, ref);
  buffer.dtype = ref.type.dtype;
  buffer.copies = copies;
  return buffer;
}

InnerLoopPlan PlanLoop(const KernelPlan& plan, const Stmt& loop) {
  InnerLoopPlan inner;
  inner.loop = &loop;
  inner.tile = loop.vars.empty() ? "" : loop.vars[0].name;
  for (size_t i = 0; i < plan.refs.size(); ++i) {
    if (plan.refs[i].stream_loop == &loop) {
      inner.streamed.push_back(static_cast<int>(i));
    }
  }
  switch (plan.launcher) {
    case Launcher::kUnroll:
    case Launcher::kTriton:
    case Launcher::kMosaicGpu:
      break;
    case Launcher::kEmitPipeline:
      for (size_t i = 0; i < loop.iter_args.size(); ++i) {
        inner.buffers.push_back(
            CarriedBuffer(loop.iter_args[i], static_cast<int>(i)));
      }
      for (int ref : inner.streamed) {
        inner.buffers.push_back(StreamedBlock(plan, ref, 2));
      }
      break;
    case Launcher::kForiLoop: {
      const int64_t slots = plan.prefetch ? 2 : 1;
      if (!inner.streamed.empty()) {
        LoopBuffer semaphores;
        semaphores.kind = LoopBuffer::Kind::kSemaphores;
        semaphores.shape = {static_cast<int64_t>(inner.streamed.size()), slots};
        inner.buffers.push_back(semaphores);
      }
      for (int ref : inner.streamed) {
        inner.buffers.push_back(StreamedBlock(plan, ref, slots));
      }
      break;
    }
  }
  return inner;
}

}  // namespace

int64_t LoopBuffer::bytes() const {
  if (kind == Kind::kSemaphores) return 0;  // not VMEM
  int64_t total = DTypeBytes(dtype);
  for (int64_t dim : shape) {
    if (dim < 0) return 0;  // a symbolic full dim: unknown until trace time
    total *= dim;
  }
  return total;
}

const InnerLoopPlan* KernelPlan::InnerLoop(const Stmt* loop) const {
  for (const InnerLoopPlan& inner : inner_loops) {
    if (inner.loop == loop) return &inner;
  }
  return nullptr;
}

void PlanInnerLoops(KernelPlan& plan, bool prefetch) {
  plan.prefetch = prefetch;
  plan.dimension_semantics.clear();
  for (int g : plan.grid_order) {
    plan.dimension_semantics.push_back(plan.grid_arbitrary[g] ? "arbitrary"
                                                              : "parallel");
  }
  plan.inner_loops.clear();
  if (plan.device == nullptr) return;
  WalkStmts(plan.device->body, [&](const Stmt& stmt) {
    if (stmt.kind == StmtKind::kTileLoop) {
      plan.inner_loops.push_back(PlanLoop(plan, stmt));
    }
  });
}

}  // namespace tessera::pallas
