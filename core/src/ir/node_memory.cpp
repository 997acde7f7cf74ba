#include "tessera/ir/node_memory.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace tessera::ir_memory {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUseSlabs = false;
#else
constexpr bool kUseSlabs = true;
#endif

constexpr std::size_t kSlabBytes = std::size_t{64} << 10;
constexpr std::size_t kNodeAlign = alignof(std::max_align_t);

// The header at the start of every slab. While the slab is a thread's
// current slab, `live` holds kOwnerBias minus the nodes freed so far; the
// owner counts its allocations without atomics and folds them in when it
// moves on. From then on `live` is the number of live nodes, and whoever
// drops it to zero returns the slab to the heap.
constexpr std::int64_t kOwnerBias = std::int64_t{1} << 40;

struct alignas(kNodeAlign) SlabHeader {
  std::atomic<std::int64_t> live{kOwnerBias};
};

constexpr std::size_t kFirstNodeOffset =
    (sizeof(SlabHeader) + kNodeAlign - 1) / kNodeAlign * kNodeAlign;

SlabHeader* SlabOf(void* node) {
  return reinterpret_cast<SlabHeader*>(reinterpret_cast<std::uintptr_t>(node) &
                                       ~(kSlabBytes - 1));
}

void Free(SlabHeader* slab) noexcept {
  slab->~SlabHeader();
  std::free(slab);
}

// The slab this thread bump-allocates from. Trivially destructible so that
// it stays usable while other thread-local objects are torn down; the guard
// below retires the slab at thread exit.
struct Cursor {
  SlabHeader* slab = nullptr;
  char* next = nullptr;
  char* end = nullptr;
  std::int64_t allocated = 0;  // nodes handed out from `slab`
};
// initial-exec: the core is a load-time dependency of every program that
// uses it, and the default model would make each allocation call
// __tls_get_addr.
__attribute__((tls_model("initial-exec"))) thread_local Cursor cursor;

void RetireCurrentSlab() noexcept {
  if (cursor.slab == nullptr) return;
  const std::int64_t delta = cursor.allocated - kOwnerBias;
  if (cursor.slab->live.fetch_add(delta, std::memory_order_acq_rel) + delta ==
      0) {
    Free(cursor.slab);
  }
  cursor = Cursor{};
}

struct CursorGuard {
  ~CursorGuard() { RetireCurrentSlab(); }
};
thread_local CursorGuard cursor_guard;

void StartNewSlab() {
  void* memory = std::aligned_alloc(kSlabBytes, kSlabBytes);
  if (memory == nullptr) throw std::bad_alloc();
  RetireCurrentSlab();
  cursor.slab = new (memory) SlabHeader();
  cursor.next = static_cast<char*>(memory) + kFirstNodeOffset;
  cursor.end = static_cast<char*>(memory) + kSlabBytes;
  (void)&cursor_guard;  // registers this thread's guard
}

bool AllNodesOfCurrentSlabDied() {
  return cursor.slab->live.load(std::memory_order_acquire) ==
         kOwnerBias - cursor.allocated;
}

}  // namespace

void* AllocateFromSlab(std::size_t bytes) {
  if constexpr (!kUseSlabs) return ::operator new(bytes);
  bytes = (bytes + kNodeAlign - 1) / kNodeAlign * kNodeAlign;
  if (cursor.slab != nullptr && cursor.allocated > 0 &&
      AllNodesOfCurrentSlabDied()) {
    // Start the slab over, so that the next module is laid out where the
    // last one was. No other thread can touch a slab without live nodes.
    cursor.slab->live.store(kOwnerBias, std::memory_order_relaxed);
    cursor.next = reinterpret_cast<char*>(cursor.slab) + kFirstNodeOffset;
    cursor.allocated = 0;
  }
  if (cursor.slab == nullptr ||
      static_cast<std::size_t>(cursor.end - cursor.next) < bytes) {
    StartNewSlab();
  }
  void* node = cursor.next;
  cursor.next += bytes;
  ++cursor.allocated;
  return node;
}

bool SlabsEnabled() { return kUseSlabs; }

void FreeToSlab(void* node) noexcept {
  if (node == nullptr) return;
  if constexpr (!kUseSlabs) return ::operator delete(node);
  SlabHeader* slab = SlabOf(node);
  if (slab->live.fetch_sub(1, std::memory_order_acq_rel) == 1) Free(slab);
}

}  // namespace tessera::ir_memory
