"""Where the jobs run: in this process, in a local process pool (--jobs N),
or as tasks of an existing Ray cluster (--ray ADDRESS).

Each job is independent (spec.Job in, a list of records out). Ray tasks are
run by reference to this module, so every node needs the source tree at the
same path (a shared checkout or the same image) and the tessera build; the
driver passes the module search path to the workers in the runtime
environment. A job that times a kernel on a TPU asks Ray for one unit of the
`TPU` resource; without TPUs in the cluster no job asks for it.
"""
import concurrent.futures
import multiprocessing
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[1]
PYTHON_PATH = [str(HERE), str(SOURCE_DIR / "scripts"), str(SOURCE_DIR / "tests" / "conformance"),
               str(SOURCE_DIR / "tests" / "cost_model")]


def _add_paths():
    for path in reversed(PYTHON_PATH):
        if path not in sys.path:
            sys.path.insert(0, path)


def run_job(job, context):
    """The one function every executor calls (a top-level, importable name)."""
    _add_paths()
    import jobs
    return jobs.run_job(job, context)


def run_serial(job_list, context, on_done):
    for job in job_list:
        on_done(job, run_job(job, context))


def run_pool(job_list, context, workers, on_done):
    # "spawn": each worker starts clean and imports JAX itself (JAX and
    # libtpu hold threads a fork would copy half-way).
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    with pool:
        futures = {pool.submit(run_job, job, context): job for job in job_list}
        for future in concurrent.futures.as_completed(futures):
            on_done(futures[future], future.result())


def ray_resources(job, cluster_resources, measure):
    """The resources a job's task asks for: a TPU when the cluster has TPUs,
    the job times kernels there (a cells or baseline job) and measuring is
    not turned off; else one CPU."""
    wants_tpu = (cluster_resources.get("TPU", 0) > 0 and measure != "off"
                 and job.kind in ("cells", "baseline"))
    return {"num_cpus": 1, "resources": {"TPU": 1} if wants_tpu else {}}


def run_ray(job_list, context, address, on_done):
    import ray
    env = {"PYTHONPATH": os.pathsep.join(PYTHON_PATH + [os.environ.get("PYTHONPATH", "")]),
           "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "")}
    for name in ("TESSERA_PLUGIN_PATH", "TESSERA_BENCH_NO_TPU"):
        if name in os.environ:
            env[name] = os.environ[name]
    ray.init(address=address, runtime_env={"env_vars": env},
             log_to_driver=False, ignore_reinit_error=True)
    try:
        task = ray.remote(run_job)
        cluster = ray.cluster_resources()
        pending = {}
        for job in job_list:
            options = ray_resources(job, cluster, context.get("measure"))
            pending[task.options(**options).remote(job, context)] = job
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                on_done(pending.pop(ref), ray.get(ref))
    finally:
        ray.shutdown()


def run_all(job_list, context, workers=1, ray_address=None, on_done=None):
    """Runs every job; on_done(job, records) is called as each finishes."""
    if ray_address:
        run_ray(job_list, context, ray_address, on_done)
    elif workers > 1:
        run_pool(job_list, context, workers, on_done)
    else:
        run_serial(job_list, context, on_done)
