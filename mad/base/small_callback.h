// A move-only `void()` callable that keeps a small capture (up to 32 bytes:
// a `this` and three words) inline instead of on the heap. std::function
// keeps only 16 bytes inline, so a callback capturing `this`, a GUID and a
// node index costs a malloc and a free; sent with each of a bring-up's
// millions of SMPs, those (and the fragmentation of freeing them in answer
// order) were some 5% of the run. Larger callables go to the heap.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace ibsm {

class SmallCallback {
 public:
  static constexpr size_t kInline = 32;

  SmallCallback() = default;
  SmallCallback(std::nullptr_t) {}  // NOLINT: as std::function
  // Any callable; one that tests false (an empty std::function, a null
  // function pointer) makes an empty callback.
  template <typename F, typename D = std::decay_t<F>>
    requires(!std::is_same_v<D, SmallCallback> && std::is_invocable_v<D&>)
  SmallCallback(F&& f) {  // NOLINT: converts like std::function
    if constexpr (std::is_constructible_v<bool, const D&>) {
      if (!static_cast<bool>(f)) return;
    }
    if constexpr (fits_inline<D>()) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &inline_ops<D>;
    } else {
      ::new (static_cast<void*>(storage_)) D*(new D(std::forward<F>(f)));
      ops_ = &heap_ops<D>;
    }
  }
  SmallCallback(SmallCallback&& o) noexcept { take(o); }
  SmallCallback& operator=(SmallCallback&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  SmallCallback& operator=(std::nullptr_t) {
    reset();
    return *this;
  }
  SmallCallback(const SmallCallback&) = delete;
  SmallCallback& operator=(const SmallCallback&) = delete;
  ~SmallCallback() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->call(storage_); }

 private:
  struct Ops {
    void (*call)(void*);
    void (*move)(void* to, void* from);  // move-constructs at `to`, destroys `from`
    void (*destroy)(void*);
  };
  template <typename D>
  static constexpr bool fits_inline() {
    return sizeof(D) <= kInline && alignof(D) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<D>;
  }
  template <typename D>
  static constexpr Ops inline_ops{
      [](void* p) { (*static_cast<D*>(p))(); },
      [](void* to, void* from) {
        ::new (to) D(std::move(*static_cast<D*>(from)));
        static_cast<D*>(from)->~D();
      },
      [](void* p) { static_cast<D*>(p)->~D(); }};
  template <typename D>
  static constexpr Ops heap_ops{
      [](void* p) { (**static_cast<D**>(p))(); },
      [](void* to, void* from) { ::new (to) D*(*static_cast<D**>(from)); },
      [](void* p) { delete *static_cast<D**>(p); }};

  void take(SmallCallback& o) {
    if (!o.ops_) return;
    o.ops_->move(storage_, o.storage_);
    ops_ = o.ops_;
    o.ops_ = nullptr;
  }
  void reset() {
    if (!ops_) return;
    ops_->destroy(storage_);
    ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char storage_[kInline];
  const Ops* ops_ = nullptr;
};

}  // namespace ibsm
