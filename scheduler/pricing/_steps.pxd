# The C interface of scheduler/pricing/_steps.py (its functions as the compiled quote kernels
# call them: `from cython.cimports.scheduler.pricing._steps import ...`).  Keep in step with
# the .py: each declaration here is the signature of the function of the same name there
# (``buffer``, a Python function, is imported as one).

cdef Py_ssize_t index(long long[::1] times, long long t, Py_ssize_t hi) noexcept
cdef Py_ssize_t insert_step(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t p, long long t, long long f) noexcept
cdef Py_ssize_t remove_step(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t p) noexcept
cdef void move_steps(long long* times, long long* free, Py_ssize_t dst, Py_ssize_t src, Py_ssize_t n) noexcept
cdef void copy_values(long long* dst, long long* src, Py_ssize_t n) noexcept
cdef Py_ssize_t take_shifted(long long* times, long long* free, Py_ssize_t count, Py_ssize_t a, Py_ssize_t k, long long t, long long stop, long long q) noexcept
cdef Py_ssize_t take_block(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t a, Py_ssize_t k, long long t, long long stop, long long q) noexcept
cdef Py_ssize_t reserve(long long[::1] times, long long[::1] free, Py_ssize_t count, long long t, long long stop, long long q) noexcept
cdef long long least_free(long long[::1] times, long long[::1] free, Py_ssize_t lo, Py_ssize_t hi, long long a, long long b) noexcept
cdef Py_ssize_t earliest_step(long long[::1] times, long long[::1] free, Py_ssize_t count, Py_ssize_t i, long long q, long long dq, long long t, long long[::1] out) noexcept
