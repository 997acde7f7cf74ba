#include "tessera/ir/node_memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

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
// drops it to zero returns the slab to the pool.
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

// Slabs come from the OS in 1 MiB runs and are recycled through one pool.
// (aligned_alloc would map each 64 KiB slab apart, twice its size, and unmap
// it again when it empties.) The pool keeps up to kMaxPooledSlabs empty
// slabs for the next module; beyond that an emptied slab is unmapped.
constexpr std::size_t kSlabsPerRun = 16;
constexpr std::size_t kMaxPooledSlabs = 512;  // 32 MiB

class SlabPool {
 public:
  void* Take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) MapRun();
    void* slab = free_.back();
    free_.pop_back();
    return slab;
  }

  void Give(void* slab) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() < kMaxPooledSlabs) {
      free_.push_back(slab);  // capacity reserved: does not throw
    } else {
      munmap(slab, kSlabBytes);
    }
  }

 private:
  // Maps kSlabsPerRun slabs aligned to kSlabBytes: one slab's worth more
  // than needed, then the unaligned ends are unmapped.
  void MapRun() {
    const std::size_t run_bytes = kSlabsPerRun * kSlabBytes;
    void* mapped = mmap(nullptr, run_bytes + kSlabBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto begin = reinterpret_cast<std::uintptr_t>(mapped);
    const std::uintptr_t aligned =
        (begin + kSlabBytes - 1) & ~(std::uintptr_t{kSlabBytes} - 1);
    if (aligned > begin) munmap(mapped, aligned - begin);
    const std::uintptr_t tail = aligned + run_bytes;
    const std::uintptr_t end = begin + run_bytes + kSlabBytes;
    if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
    if (free_.capacity() < kMaxPooledSlabs + kSlabsPerRun) {
      free_.reserve(kMaxPooledSlabs + kSlabsPerRun);
    }
    for (std::size_t i = kSlabsPerRun; i-- > 0;) {
      free_.push_back(reinterpret_cast<void*>(aligned + i * kSlabBytes));
    }
  }

  std::mutex mutex_;
  std::vector<void*> free_;
};

// Never destroyed: nodes may die during static destruction.
SlabPool& Pool() {
  static auto* pool = new SlabPool();
  return *pool;
}

void Free(SlabHeader* slab) noexcept {
  slab->~SlabHeader();
  Pool().Give(slab);
}

// What this thread holds: the slab it bump-allocates from, and frees it
// has counted but not yet subtracted from their slab. Frees come in runs
// (a module dies in about the order it was built), so they are folded into
// one atomic subtraction per run instead of one per node. Trivially
// destructible so that it stays usable while other thread-local objects
// are torn down; the guard below settles it at thread exit.
struct ThreadSlabs {
  SlabHeader* slab = nullptr;
  char* next = nullptr;
  char* end = nullptr;
  std::int64_t allocated = 0;  // nodes handed out from `slab`
  SlabHeader* pending_slab = nullptr;
  std::int64_t pending_frees = 0;  // not yet subtracted from pending_slab
};
// initial-exec: the core is a load-time dependency of every program that
// uses it, and the default model would make each call __tls_get_addr.
__attribute__((tls_model("initial-exec"))) thread_local ThreadSlabs state;

// Subtracts `count` dead nodes from `slab`, returning it to the heap when
// none are left.
void Release(SlabHeader* slab, std::int64_t count) noexcept {
  if (slab->live.fetch_sub(count, std::memory_order_acq_rel) == count) {
    Free(slab);
  }
}

void FlushPendingFrees() noexcept {
  if (state.pending_slab == nullptr) return;
  Release(state.pending_slab, state.pending_frees);
  state.pending_slab = nullptr;
  state.pending_frees = 0;
}

void RetireCurrentSlab() noexcept {
  if (state.slab == nullptr) return;
  if (state.pending_slab == state.slab) FlushPendingFrees();
  // The owner's bias comes off; what remains are the live nodes.
  Release(state.slab, kOwnerBias - state.allocated);
  state.slab = nullptr;
  state.next = state.end = nullptr;
  state.allocated = 0;
}

struct ThreadExitGuard {
  ~ThreadExitGuard() {
    FlushPendingFrees();
    RetireCurrentSlab();
  }
};
thread_local ThreadExitGuard thread_exit_guard;

void StartNewSlab() {
  void* memory = Pool().Take();
  RetireCurrentSlab();
  state.slab = new (memory) SlabHeader();
  state.next = static_cast<char*>(memory) + kFirstNodeOffset;
  state.end = static_cast<char*>(memory) + kSlabBytes;
  (void)&thread_exit_guard;  // registers this thread's guard
}

// True when every node handed out from the current slab has been freed,
// counting this thread's pending frees. Frees pending on other threads
// still count as live, so the answer is never wrongly yes.
bool AllNodesOfCurrentSlabDied() {
  const std::int64_t pending =
      state.pending_slab == state.slab ? state.pending_frees : 0;
  return state.slab->live.load(std::memory_order_acquire) - pending ==
         kOwnerBias - state.allocated;
}

}  // namespace

void* AllocateFromSlab(std::size_t bytes) {
  if constexpr (!kUseSlabs) return ::operator new(bytes);
  bytes = (bytes + kNodeAlign - 1) / kNodeAlign * kNodeAlign;
  if (state.slab != nullptr && state.allocated > 0 &&
      AllNodesOfCurrentSlabDied()) {
    // Start the slab over, so that the next module is laid out where the
    // last one was. No other thread can touch a slab without live nodes.
    state.slab->live.store(kOwnerBias, std::memory_order_relaxed);
    if (state.pending_slab == state.slab) {
      state.pending_slab = nullptr;
      state.pending_frees = 0;
    }
    state.next = reinterpret_cast<char*>(state.slab) + kFirstNodeOffset;
    state.allocated = 0;
  }
  if (state.slab == nullptr ||
      static_cast<std::size_t>(state.end - state.next) < bytes) {
    StartNewSlab();
  }
  void* node = state.next;
  state.next += bytes;
  ++state.allocated;
  return node;
}

bool SlabsEnabled() { return kUseSlabs; }

void FreeToSlab(void* node) noexcept {
  if (node == nullptr) return;
  if constexpr (!kUseSlabs) return ::operator delete(node);
  SlabHeader* slab = SlabOf(node);
  if (slab != state.pending_slab) {
    FlushPendingFrees();
    state.pending_slab = slab;
  }
  ++state.pending_frees;
}

}  // namespace tessera::ir_memory
