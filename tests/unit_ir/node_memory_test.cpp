// The slab memory behind IR nodes: alignment, no overlap, in-order reuse
// once a module's nodes have died, frees from other threads, and requests
// too large for a slab.
#include "tessera/ir/node_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/ir/ir.h"

namespace tessera {
namespace {

struct Block {
  char* begin;
  std::size_t bytes;
};

std::vector<Block> AllocateMany(int count, std::size_t bytes) {
  std::vector<Block> blocks;
  for (int i = 0; i < count; ++i) {
    auto* memory = static_cast<char*>(ir_memory::AllocateFromSlab(bytes));
    std::memset(memory, i & 0xff, bytes);
    blocks.push_back({memory, bytes});
  }
  return blocks;
}

void FreeAll(const std::vector<Block>& blocks) {
  for (const Block& block : blocks) ir_memory::FreeToSlab(block.begin);
}

TEST(NodeMemory, BlocksAreAlignedAndDisjoint) {
  // Mixed sizes across several 64 KiB slabs.
  std::vector<Block> blocks;
  for (std::size_t bytes : {8, 24, 40, 160, 248, 1024}) {
    std::vector<Block> more = AllocateMany(500, bytes);
    blocks.insert(blocks.end(), more.begin(), more.end());
  }
  for (const Block& block : blocks) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block.begin) %
                  alignof(std::max_align_t),
              0u);
  }
  std::vector<Block> sorted = blocks;
  std::sort(sorted.begin(), sorted.end(),
            [](const Block& a, const Block& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    ASSERT_LE(sorted[i - 1].begin + sorted[i - 1].bytes, sorted[i].begin);
  }
  FreeAll(blocks);
}

TEST(NodeMemory, ContentsSurviveFreesInAnyOrder) {
  std::vector<Block> blocks = AllocateMany(4000, 160);
  std::mt19937 random(7);
  std::shuffle(blocks.begin(), blocks.end(), random);
  // Free half, then check the other half still holds what was written.
  std::vector<Block> kept(blocks.begin() + 2000, blocks.end());
  blocks.resize(2000);
  std::vector<std::pair<Block, char>> expected;
  for (const Block& block : kept) expected.push_back({block, block.begin[0]});
  FreeAll(blocks);
  std::vector<Block> fresh = AllocateMany(3000, 160);
  for (const auto& [block, value] : expected) {
    for (std::size_t i = 0; i < block.bytes; ++i) {
      ASSERT_EQ(block.begin[i], value);
    }
  }
  FreeAll(kept);
  FreeAll(fresh);
}

TEST(NodeMemory, NextModuleReusesTheSlabInOrder) {
  if (!ir_memory::SlabsEnabled()) {
    // Sanitizer build: the heap serves every request; what matters there
    // is that allocation and free still pair up, checked by the sanitizer.
    FreeAll(AllocateMany(100, 160));
    return;
  }
  // Allocate until a node starts a new slab (its address does not follow
  // the previous one), so that slab holds only this test's nodes. Once they
  // are all freed, the next nodes start where that slab's first one was, in
  // the same order.
  constexpr std::size_t kBytes = 160;
  std::vector<Block> blocks = AllocateMany(1, kBytes);
  size_t slab_start = 0;
  while (slab_start == 0) {
    blocks.push_back(AllocateMany(1, kBytes)[0]);
    const size_t last = blocks.size() - 1;
    if (blocks[last].begin != blocks[last - 1].begin + kBytes) {
      slab_start = last;
    }
  }
  std::vector<Block> more = AllocateMany(8, kBytes);
  blocks.insert(blocks.end(), more.begin(), more.end());
  std::vector<char*> addresses;
  for (size_t i = slab_start; i < blocks.size(); ++i) {
    addresses.push_back(blocks[i].begin);
  }
  FreeAll(blocks);
  std::vector<Block> second = AllocateMany(9, kBytes);
  for (size_t i = 0; i < second.size(); ++i) {
    EXPECT_EQ(second[i].begin, addresses[i]) << "node " << i;
  }
  FreeAll(second);
}

TEST(NodeMemory, OtherThreadsMayFreeAndAllocate) {
  std::vector<Block> from_worker;
  std::thread worker([&] { from_worker = AllocateMany(3000, 96); });
  worker.join();  // the worker's current slab is retired at its exit
  std::vector<Block> from_main = AllocateMany(3000, 96);
  std::thread freer([&] {
    FreeAll(from_main);
    std::vector<Block> own = AllocateMany(100, 32);
    FreeAll(own);
  });
  freer.join();
  for (size_t i = 0; i < from_worker.size(); ++i) {
    ASSERT_EQ(from_worker[i].begin[0], static_cast<char>(i & 0xff));
  }
  FreeAll(from_worker);
}

TEST(NodeMemory, LargeRequestsGoToTheHeap) {
  constexpr std::size_t kLarge = ir_memory::kMaxSlabBytes + 1;
  void* large = ir_memory::Allocate(kLarge);
  std::memset(large, 1, kLarge);
  ir_memory::Free(large, kLarge);

  // A shape grows from slab-sized to heap-sized buffers and back.
  Shape shape;
  for (int i = 0; i < 200; ++i) shape.push_back(Dim::Static(i));
  Shape copy = shape;
  copy.resize(3);
  copy.shrink_to_fit();
  EXPECT_EQ(shape.size(), 200u);
  EXPECT_EQ(shape[199].size, 199);
  EXPECT_EQ(copy, (Shape{Dim::Static(0), Dim::Static(1), Dim::Static(2)}));
}

TEST(NodeMemory, ExpressionTreesUseIt) {
  ExprList operands;
  operands.push_back(MakeVar("x", Type::Tensor(DType::kF32, {Dim::Static(8)})));
  operands.push_back(MakeFloatConst(1.0));
  ExprPtr sum =
      MakeOp(OpKind::kAdd, Type::Tensor(DType::kF32, {Dim::Static(8)}),
             std::move(operands));
  ExprPtr copy = CloneExpr(*sum);
  sum.reset();
  ASSERT_EQ(copy->operands.size(), 2u);
  EXPECT_EQ(copy->operands[0]->name, "x");
  EXPECT_EQ(copy->type, Type::Tensor(DType::kF32, {Dim::Static(8)}));
}

}  // namespace
}  // namespace tessera
