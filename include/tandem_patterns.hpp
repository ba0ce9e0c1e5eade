// Tandem's overlap patterns from C++: the loop's computation and the tiles' consumer as lambdas (or any
// callables). Header-only, over tandem_patterns.h.
//
//   tandem::Pattern pipeline(spec,
//       [&](int item, void *const out[], int counts[]) { ... },              // computes one item
//       [&](int first, int items, const void *in, const int counts[], const int displs[]) { ... });
//   pipeline.run();                       // as often as the application iterates
//
// spec is a TDM_Pattern_spec without compute, consume and user (the Pattern sets them). Errors throw
// tandem::Error (the MPI error class and TDM_Last_error's message); an exception thrown by a callable
// ends its part of the run as an error would (TDM_Pattern_run) and is thrown again from run().
#ifndef TANDEM_PATTERNS_HPP
#define TANDEM_PATTERNS_HPP

#include "tandem_patterns.h"

#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace tandem {

class Error : public std::runtime_error {
  public:
    Error(int error_class, const std::string &what) : std::runtime_error(what), error_class_(error_class) {}
    int error_class() const noexcept { return error_class_; }

  private:
    int error_class_;
};

inline void check(int rc)
{
    if (rc != MPI_SUCCESS)
        throw Error(rc, TDM_Last_error());
}

class Pattern {
  public:
    using Compute = std::function<void(int item, void *const out[], int counts[])>;
    using Consume = std::function<void(int first_item, int items, const void *in, const int counts[], const int displs[])>;

    Pattern(TDM_Pattern_spec spec, Compute compute, Consume consume = nullptr)
        : compute_(std::move(compute)), consume_(std::move(consume))
    {
        spec.compute = compute_ ? &Pattern::compute_trampoline : nullptr;
        spec.consume = consume_ ? &Pattern::consume_trampoline : nullptr;
        spec.user = this;
        check(TDM_Pattern_create(&spec, &pattern_));
    }
    Pattern(const Pattern &) = delete; // the C pattern holds this object's address
    Pattern &operator=(const Pattern &) = delete;
    ~Pattern()
    {
        if (pattern_)
            TDM_Pattern_free(&pattern_);
    }

    void run()
    {
        thrown_ = nullptr;
        int rc = TDM_Pattern_run(pattern_);
        if (thrown_)
            std::rethrow_exception(std::exchange(thrown_, nullptr));
        check(rc);
    }
    int tile() const { return params().first; }
    int window() const { return params().second; }
    TDM_Pattern_times times() const
    {
        TDM_Pattern_times t;
        check(TDM_Pattern_get_times(pattern_, &t));
        return t;
    }
    TDM_Pattern handle() const { return pattern_; }

  private:
    std::pair<int, int> params() const
    {
        int tile = 0, window = 0;
        check(TDM_Pattern_get_params(pattern_, &tile, &window, nullptr));
        return {tile, window};
    }
    // A callable's exception is kept for run() to throw; the C pattern sees an error.
    template <class Call> int guarded(Call &&call) noexcept
    {
        try {
            call();
            return 0;
        } catch (...) {
            if (!thrown_)
                thrown_ = std::current_exception();
            return MPI_ERR_OTHER;
        }
    }
    static int compute_trampoline(int item, void *const out[], int counts[], void *user)
    {
        auto *self = static_cast<Pattern *>(user);
        return self->guarded([&] { self->compute_(item, out, counts); });
    }
    static int consume_trampoline(int first, int items, const void *in, const int counts[], const int displs[],
                                  void *user)
    {
        auto *self = static_cast<Pattern *>(user);
        return self->guarded([&] { self->consume_(first, items, in, counts, displs); });
    }

    Compute compute_;
    Consume consume_;
    TDM_Pattern pattern_ = nullptr;
    std::exception_ptr thrown_;
};

} // namespace tandem

#endif // TANDEM_PATTERNS_HPP
