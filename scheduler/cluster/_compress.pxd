# cython: initializedcheck=False, boundscheck=False, wraparound=False
# The C side of scheduler/cluster/_compress.py, which the whole-run loop
# (scheduler/cluster/_loop.py) cimports: the pass's memory and its two steps, called as C
# functions (keep each signature in step with the .py).

cimport cython
from scheduler.cluster._steps cimport Steps


@cython.final
cdef class Pass:
    cdef long long[::1] peak
    cdef long long[::1] peak_times
    cdef Py_ssize_t peak_len
    cdef long long peak_until
    cdef long long[::1] gone
    cdef Py_ssize_t gone_len
    cdef long long[::1] shape_n
    cdef long long[::1] shape_d
    cdef long long[::1] bound_at
    cdef long long[::1] bound_moves
    cdef long long[::1] slot_generation
    cdef Py_ssize_t mask
    cdef long long generation
    cdef Py_ssize_t slot_found
    cdef void _table(self, Py_ssize_t size)
    cdef void begin(self, long long now, Py_ssize_t jobs)
    cdef Py_ssize_t slot(self, long long n, long long d)
    cdef long long bound(self, Py_ssize_t i, long long now, long long d)
    cdef void keep(self, Py_ssize_t i, long long n, long long d, long long b)
    cdef void running_max(self, Steps p)
    cdef Py_ssize_t first_with(self, long long n)
    cdef void moved(self, long long back_from)


cpdef long long earliest_in_pass(Steps p, Pass passed, long long n, long long d, long long start, long long now)
cpdef int move_planned(Steps p, Pass passed, long long start, long long new_start, long long n, long long d)
cpdef Py_ssize_t compress(Steps p, Pass passed, list shapes, dict plan, list starts, long long now)
cdef long long _fit_before_step(Steps p, Pass passed, long long n, long long d, Py_ssize_t before, long long start, long long now)
cpdef drop(list queue, list shapes, set gone)
