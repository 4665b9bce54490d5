/* measure.c - Lab 03: one launch, measured, the way every row of every experiment is: the occupancy
 * calculator against the CUDA API, the residency records (SM efficiency, achieved occupancy, the
 * timeline), the output poisoned, timed and checked. main.c (the seed, limits, tail, sms and
 * exercises experiments) and latency.c (the latency experiment) call down into it; it calls
 * neither of them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lab03.h"
#include "gl_lab.h"
#include "gl_residency.h"
#include "gl_verify.h"

void lab03_report(lab03 *L, gl_row *row) { gl_report_row(&L->lab.report, row); }

/* ---------------------------------------------------------------- one launch, measured */


void lab03_enqueue_job(void *ctx, cudaStream_t s)
{
    launch_job *j = (launch_job *)ctx;
    if (j->is_seed) launch_seed(&j->seed, j->sh, s);
    else launch_work(j->kernel, &j->work, j->sh, s);
}

static kernel_attrs job_attrs(const launch_job *j) { return j->is_seed ? seed_attrs() : work_attrs(j->kernel); }

static int job_api_blocks(const launch_job *j)
{
    return j->is_seed ? seed_api_blocks_per_sm((int)j->sh.threads, j->sh.smem)
                      : work_api_blocks_per_sm(j->kernel, (int)j->sh.threads, j->sh.smem);
}

/* The calculator's answer for this launch, required to equal the CUDA occupancy API's. */
static occ_result calculate(lab03 *L, const launch_job *j, gl_row *row, const char *what)
{
    kernel_attrs ka = job_attrs(j);
    occ_result r = occ_calculate(&L->occ, (int)j->sh.threads, ka.registers, (size_t)ka.static_smem, j->sh.smem);
    int api = job_api_blocks(j);
    row->threads_per_block = j->sh.threads;
    row->blocks = j->sh.blocks;
    row->registers_per_thread = ka.registers;
    row->smem_per_block = (double)j->sh.smem + ka.static_smem;
    row->blocks_per_sm = r.blocks_per_sm;
    row->api_blocks_per_sm = api;
    row->theoretical_occupancy = r.occupancy;
    if (api != r.blocks_per_sm) {
        fprintf(stderr, "CALCULATOR MISMATCH: %s: %u threads, %d registers, %zu B shared: calculator "
                        "%d blocks/SM (limit: %s), cudaOccupancyMaxActiveBlocksPerMultiprocessor %d\n",
                what, j->sh.threads, ka.registers, j->sh.smem + ka.static_smem, r.blocks_per_sm,
                occ_limiter_name(r.limiter), api);
        exit(GL_EXIT_FAIL);
    }
    return r;
}

/* One line per block: its SM, warps, and first start / last end (us after the launch's first
 * warp started). Records are in launch order (warp index), so a block's warps are adjacent. */
static void write_timeline(lab03 *L, const gl_row *row, const gl_warp_rec *rec, size_t warps, unsigned per_block)
{
    uint64_t t0 = rec[0].start;
    for (size_t w = 0; w < warps; w++) t0 = rec[w].start < t0 ? rec[w].start : t0;
    for (size_t b = 0; b * per_block < warps; b++) {
        const gl_warp_rec *r = rec + b * per_block;
        uint64_t lo = r[0].start, hi = r[0].end;
        for (unsigned w = 1; w < per_block; w++) {
            lo = r[w].start < lo ? r[w].start : lo;
            hi = r[w].end > hi ? r[w].end : hi;
        }
        fprintf(L->timeline.f, "%s,%s,%lld,%zu,%u,%u,%.3f,%.3f,%d\n", row->experiment, row->variant, row->size, b,
                r[0].sm, per_block, (lo - t0) / 1e3, (hi - t0) / 1e3, L->lab.dev.sms);
    }
    gl_out_check(&L->timeline, 0);
}

/* Launch once with residency records; fill achieved occupancy and SM efficiency, and append the
 * records to the timeline file when `timeline` is set. */
static void measure_residency(lab03 *L, launch_job *j, gl_row *row, int timeline, const char *what)
{
    size_t warps = (size_t)j->sh.blocks * (j->sh.threads / 32);
    size_t bytes = warps * GL_WARP_RECORD_WORDS * sizeof(unsigned long long);
    unsigned long long *d_rec = (unsigned long long *)gl_device_alloc(bytes, "residency records");
    unsigned long long *h_rec = (unsigned long long *)gl_host_alloc(bytes, "residency records");
    gl_warp_rec *rec = (gl_warp_rec *)gl_host_alloc(warps * sizeof(gl_warp_rec), "residency records");
    gl_poison(d_rec, bytes);
    launch_job rj = *j;
    rj.seed.counts = rj.work.counts = d_rec;
    lab03_enqueue_job(&rj, L->lab.timer.stream);
    GL_CHECK(cudaStreamSynchronize(L->lab.timer.stream));
    GL_CHECK(cudaMemcpy(h_rec, d_rec, bytes, cudaMemcpyDeviceToHost));
    if (gl_unpack_warp_records(h_rec, warps, rec, L->lab.dev.sms_device, what) ||
        gl_renumber_sms(rec, warps, L->lab.dev.sms_device, L->lab.dev.sms, what) < 0)
        exit(GL_EXIT_FAIL);
    gl_warps_start_at_placement(rec, warps, j->sh.threads / 32, (int)row->blocks_per_sm);
    if (timeline && L->has_timeline) write_timeline(L, row, rec, warps, j->sh.threads / 32);
    gl_residency g = gl_residency_of(rec, warps, L->lab.dev.sms, L->max_warps);
    row->achieved_occupancy = g.achieved_occupancy;
    row->sm_efficiency = g.sm_efficiency;
    row->smsp_efficiency = g.smsp_efficiency;
    GL_CHECK(cudaFree(d_rec));
    free(h_rec);
    free(rec);
}

/* The steps every row shares: calculator = API, residency, poison, time, check. */
occ_result lab03_measure(lab03 *L, launch_job *j, gl_row *row, const output_check *out, int timeline)
{
    char what[128];
    snprintf(what, sizeof what, "%s/%s size=%lld param=%lld", row->experiment, row->variant, row->size, row->param);
    occ_result r = calculate(L, j, row, what);
    measure_residency(L, j, row, timeline, what);
    gl_poison(out->d_y, (size_t)out->n * sizeof(float));
    gl_lab_time(&L->lab, row, lab03_enqueue_job, j);
    row->checked = gl_verify_warps(out->d_y, out->h_y, out->n, out->sample_warps, out->ref, out->ref_ctx, what);
    return r;
}



float lab03_work_ref(const void *ctx, uint32_t i)
{
    const work_ref_ctx *r = (const work_ref_ctx *)ctx;
    return r->accumulators ? ref_regs(r->x[i], r->iters, r->accumulators) : ref_fma(r->x[i], r->iters);
}

/* One compute-bound row: `kernel` on the arrays, FLOPs = 2 x n x iters x max(1, accumulators). */
occ_result lab03_compute_row(lab03 *L, const char *experiment, const char *variant, long long param,
                             work_kernel kernel, gl_arrays *A, uint32_t iters, launch_shape sh, int timeline,
                             gl_row *out_row)
{
    launch_job j;
    memset(&j, 0, sizeof j);
    j.sh = sh;
    j.kernel = kernel;
    j.work = (work_args){A->d_x, A->d_y, A->n, iters, NULL};
    int acc = work_accumulators(kernel);
    gl_row row = gl_row_new(experiment, variant, A->n);
    row.param = param;
    row.working_set_bytes = 8.0 * A->n;
    work_ref_ctx ref = {A->h_x, iters, acc};
    output_check out = {A->d_y, A->h_y, A->n, lab03_work_ref, &ref, SAMPLE_WARPS};
    occ_result r = lab03_measure(L, &j, &row, &out, timeline);
    row.gflops = 2.0 * A->n * iters * (acc ? acc : 1) / (row.median_ms * 1e6);
    *out_row = row;
    return r;
}
