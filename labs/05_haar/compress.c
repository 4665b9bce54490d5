/* compress.c - Lab 05, the `compress` experiment: keep the largest k% of the coefficients
 * (threshold found with CUB), reconstruct, PSNR, both conventions, every step checked against the
 * reference; and the pictures --save writes (the input, the coefficients' mosaic, each
 * reconstruction). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lab05.h"

/* A reconstruction as an 8-bit picture: rounded and clamped, as the PSNR counts it. */
static void save_u8(const lab05 *L, const float *v, int w, int h, const char *name)
{
    gl_image m = {w, h, (unsigned char *)gl_host_alloc((size_t)w * h, "picture")};
    for (size_t i = 0; i < (size_t)w * h; i++) m.pixels[i] = haar_pixel_u8(v[i]);
    gl_lab_save_picture(&L->lab, name, &m);
    free(m.pixels);
}

/* Coefficients as a picture: log(1 + |c|) scaled to 0..255 so that every level shows. */
void lab05_save_mosaic(const lab05 *L, const float *coef, int w, int h, const char *name)
{
    gl_image m = {w, h, (unsigned char *)gl_host_alloc((size_t)w * h, "mosaic")};
    double top = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) top = fmax(top, log1p(fabs(coef[i])));
    for (size_t i = 0; i < (size_t)w * h; i++)
        m.pixels[i] = (unsigned char)lrint(top > 0 ? 255.0 * log1p(fabs(coef[i])) / top : 0);
    gl_lab_save_picture(&L->lab, name, &m);
    free(m.pixels);
}

#define COMPRESS_HEADER "convention,keep_pct,kept,pixels,threshold,psnr_db,mse,dropped_per_pixel,identity_rel_err,keep_ms"

/* The single pass's scratch, and all compress_convention takes on the GPU at once: picture,
 * coefficients, kept, reconstruction, scratch, and keep_largest's buffers while it runs. */
static size_t compress_scratch_bytes(int w, int h, int levels) { return haar_gpu_scratch_bytes(HAAR_SINGLE_PASS, w, h, levels); }
static double compress_device_bytes(int w, int h, int levels)
{
    return 4.0 * (double)((size_t)w * h * 4) + (double)compress_scratch_bytes(w, h, levels) +
           (double)haar_gpu_keep_largest_bytes(w, h);
}

/* One convention: forward on the GPU, then for each k% keep the largest, inverse, PSNR; every
 * step checked against the reference (the kept set bit for bit against haar_keep_largest on the
 * same coefficients). */
static void compress_convention(lab05 *L, const picture *p, haar_convention conv)
{
    static const double KEEP_PCT[] = {50, 20, 10, 5, 2, 1};
    int w = p->w, h = p->h, levels = L->levels;
    size_t n = (size_t)w * h;
    haar_case k;
    memset(&k, 0, sizeof k);
    k.w = w, k.h = h, k.pitch = (size_t)w, k.n = n, k.levels = levels, k.conv = conv;
    float *img = (float *)gl_host_alloc(n * 4, "picture"), *coef = (float *)gl_host_alloc(n * 4, "coefficients");
    float *kept_ref = (float *)gl_host_alloc(n * 4, "kept"), *back = (float *)gl_host_alloc(n * 4, "reconstruction");
    for (size_t i = 0; i < n; i++) img[i] = p->img.pixels[i];
    float *d_img = (float *)gl_device_alloc(n * 4, "picture"), *d_coef = (float *)gl_device_alloc(n * 4, "coefficients");
    float *d_kept = (float *)gl_device_alloc(n * 4, "kept"), *d_back = (float *)gl_device_alloc(n * 4, "reconstruction");
    size_t scratch = compress_scratch_bytes(w, h, levels);
    void *d_scratch = scratch ? gl_device_alloc(scratch, "scratch") : NULL;
    cudaStream_t s = L->lab.timer.stream;
    GL_CHECK(cudaMemcpy(d_img, img, n * 4, cudaMemcpyHostToDevice));
    gl_fence();
    GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, d_img, d_coef, w, h, (size_t)w, levels, conv, d_scratch, NULL, s));
    GL_CHECK(cudaStreamSynchronize(s));
    GL_CHECK(cudaMemcpy(coef, d_coef, n * 4, cudaMemcpyDeviceToHost));
    memcpy(kept_ref, img, n * 4);
    haar_forward_ref_all_cores(kept_ref, w, h, (size_t)w, levels, conv);
    lab05_compare("compress/forward", coef, kept_ref, &k, haar_gpu_tolerance(conv, levels, lab05_max_abs(kept_ref, &k)));
    if (L->lab.cli.save) {
        char name[64];
        snprintf(name, sizeof name, "mosaic_%s_L%d", haar_convention_name(conv), levels);
        lab05_save_mosaic(L, coef, w, h, name);
    }
    const int n_keep = (int)(sizeof KEEP_PCT / sizeof KEEP_PCT[0]);
    gl_progress pr; /* at 32768^2 each step's CPU reference takes tens of seconds: say how far it is */
    gl_progress_begin(&pr, 3 * n_keep, "compress %s %d x %d: the GPU's steps checked on the CPU",
                      haar_convention_name(conv), w, h);
    for (int i = 0; i < n_keep; i++) {
        size_t keep = haar_keep_count(n, KEEP_PCT[i]);
        char step[64];
        GL_CHECK(cudaMemcpy(d_kept, d_coef, n * 4, cudaMemcpyDeviceToDevice));
        gl_fence(); /* a device-to-device cudaMemcpy may return before the copy is done, and in a green
                       context (--sms) stream s does not wait for the default stream (gl_check.h) */
        float threshold;
        size_t above;
        const double t0 = gl_wall_ms();
        GL_CHECK(haar_gpu_keep_largest(d_kept, w, h, (size_t)w, keep, &threshold, &above, s));
        const double keep_ms = gl_wall_ms() - t0;
        /* the reference rule on the same (GPU) coefficients: the kept set must be identical */
        memcpy(kept_ref, coef, n * 4);
        double dropped = haar_keep_largest(kept_ref, n, keep);
        snprintf(step, sizeof step, "keep %.0f%%: the reference's selection", KEEP_PCT[i]);
        gl_progress_tick(&pr, 3 * i + 1, step);
        GL_CHECK(cudaMemcpy(back, d_kept, n * 4, cudaMemcpyDeviceToHost));
        char what[96];
        snprintf(what, sizeof what, "compress/%s keep %.0f%%: kept coefficients", haar_convention_name(conv), KEEP_PCT[i]);
        lab05_compare(what, back, kept_ref, &k, 0);
        gl_poison(d_back, n * 4);
        GL_CHECK(haar_gpu_inverse(HAAR_SINGLE_PASS, d_kept, d_back, w, h, (size_t)w, levels, conv, d_scratch, NULL, s));
        GL_CHECK(cudaStreamSynchronize(s));
        GL_CHECK(cudaMemcpy(back, d_back, n * 4, cudaMemcpyDeviceToHost));
        haar_inverse_ref_all_cores(kept_ref, w, h, (size_t)w, levels, conv);
        snprintf(what, sizeof what, "compress/%s keep %.0f%%: reconstruction", haar_convention_name(conv), KEEP_PCT[i]);
        lab05_compare(what, back, kept_ref, &k, haar_gpu_tolerance(conv, levels, 255.0 * (1 << levels)));
        snprintf(step, sizeof step, "keep %.0f%%: the reconstruction", KEEP_PCT[i]);
        gl_progress_tick(&pr, 3 * i + 2, step);
        double mse = 0;
        for (size_t j = 0; j < n; j++) mse += ((double)back[j] - img[j]) * ((double)back[j] - img[j]);
        mse /= (double)n;
        double psnr = haar_psnr_u8(p->img.pixels, back, n);
        double identity = fabs(mse - dropped / n) / fmax(mse, 1e-300);
        /* the free self-test: with orthonormal scaling the image error IS the dropped energy */
        if (conv == HAAR_ORTHONORMAL && mse > 1e-6 && identity > 1e-3) {
            fprintf(stderr, "VERIFICATION FAILED: compress/orthonormal keep %.0f%%: MSE %.9g but sum dropped^2 / "
                            "pixels %.9g (relative difference %.2g > 1e-3)\n",
                    KEEP_PCT[i], mse, dropped / n, identity);
            exit(GL_EXIT_FAIL);
        }
        printf("  %-11s keep %4.0f%% = %9zu coefficients: threshold %10.4g, PSNR %6.2f dB, MSE %10.4f, "
               "sum dropped^2/pixels %10.4f (%s)\n",
               haar_convention_name(conv), KEEP_PCT[i], keep, threshold, psnr, mse, dropped / n,
               conv == HAAR_ORTHONORMAL ? "equal: Parseval" : "not the MSE: the average convention is not orthonormal");
        if (L->compress_open) {
            FILE *f = L->compress_csv.f;
            fprintf(f, "%s,%g,%zu,%zu,%.9g,%.6f,%.9g,%.9g,%.3g,%.4f\n", haar_convention_name(conv), KEEP_PCT[i], keep, n,
                    threshold, psnr, mse, dropped / n, identity, keep_ms);
            gl_out_check(&L->compress_csv, 0);
        }
        if (L->lab.cli.save) {
            char name[64];
            snprintf(name, sizeof name, "keep%02.0f_%s", KEEP_PCT[i], haar_convention_name(conv));
            save_u8(L, back, w, h, name);
        }
        L->compress_steps++;
        snprintf(step, sizeof step, "keep %.0f%%: PSNR", KEEP_PCT[i]);
        gl_progress_tick(&pr, 3 * i + 3, step);
    }
    gl_progress_end(&pr);
    free(img), free(coef), free(kept_ref), free(back);
    GL_CHECK(cudaFree(d_img));
    GL_CHECK(cudaFree(d_coef));
    GL_CHECK(cudaFree(d_kept));
    GL_CHECK(cudaFree(d_back));
    if (d_scratch) GL_CHECK(cudaFree(d_scratch));
}

void lab05_run_compress(lab05 *L, const picture *p)
{
    if (!lab05_wanted(L, "compress")) return;
    gl_lab_heading("compress", "%d x %d picture, %d levels: keep the largest k%% (CUB), reconstruct, PSNR", p->w, p->h,
                   L->levels);
    if (!gl_lab_fits(&L->lab, compress_device_bytes(p->w, p->h, L->levels), "compress", NULL, (long long)p->w * p->h))
        return;
    L->compress_open = gl_lab_open_beside(&L->lab, &L->compress_csv, ".compress.csv", COMPRESS_HEADER) == 0;
    if (L->lab.cli.save) gl_lab_save_picture(&L->lab, "input", &p->img);
    compress_convention(L, p, HAAR_AVERAGE);
    compress_convention(L, p, HAAR_ORTHONORMAL);
    if (L->compress_open) gl_out_close(&L->compress_csv);
}
