// Memory for IR nodes: expression nodes and the dim lists of types.
//
// A module's expressions and types are tens of thousands of small objects
// that are built together and die together. From the general-purpose heap
// each costs a malloc and a free that coalesces neighbours, and once one
// module has been freed and another built, the heap hands the freed chunks
// back in reverse order, so walking the new module jumps through memory.
// Here they are bump-allocated in order from 64 KiB slabs; a slab counts
// its live objects and, when the last one dies, goes back to a pool for the
// next module (up to 32 MiB of empty slabs are kept; more are returned to
// the OS). The price is that one long-lived object keeps its whole slab
// alive.
//
// Any thread may allocate (each has its own current slab) and any thread may
// free. Under AddressSanitizer everything comes from the ordinary heap, so
// the sanitizer still sees each use after free.
#pragma once

#include <cstddef>
#include <new>

namespace tessera {

namespace ir_memory {
// Requests up to this size come from slabs; larger ones from the heap.
inline constexpr std::size_t kMaxSlabBytes = 1024;

// `bytes` must be at most kMaxSlabBytes.
void* AllocateFromSlab(std::size_t bytes);
void FreeToSlab(void* memory) noexcept;
// False in sanitizer builds, where every request goes to the heap.
bool SlabsEnabled();

inline void* Allocate(std::size_t bytes) {
  return bytes <= kMaxSlabBytes ? AllocateFromSlab(bytes)
                                : ::operator new(bytes);
}
// `bytes` is the size the memory was allocated with.
inline void Free(void* memory, std::size_t bytes) noexcept {
  if (bytes <= kMaxSlabBytes) {
    FreeToSlab(memory);
  } else {
    ::operator delete(memory);
  }
}
}  // namespace ir_memory

// A standard allocator over the slabs, for containers inside IR nodes.
template <typename T>
struct IrAllocator {
  using value_type = T;

  IrAllocator() = default;
  template <typename U>
  IrAllocator(const IrAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(ir_memory::Allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    ir_memory::Free(p, n * sizeof(T));
  }

  template <typename U>
  friend bool operator==(const IrAllocator&, const IrAllocator<U>&) noexcept {
    return true;
  }
};

}  // namespace tessera
