import { setFlagsFromString } from 'node:v8';

/**
 * Imported first by main.ts, before any other module allocates: turns off V8's
 * allocation-site pretenuring for the service process, to keep its memory down under load.
 *
 * V8 watches how many objects from each allocation site survive a young-generation
 * collection, and when most do, allocates that site's objects straight into the old
 * generation from then on. Under load the row objects pg builds for every query (strings,
 * Dates, arrays) were judged long-lived (a burst of queued requests keeps them alive for
 * one collection) and pretenured for the rest of the process's life: each request's rows
 * then went to the old generation, which filled with garbage at about 60 MB/s and was
 * swept every two seconds. Measured on GET /v1/novels under 32 connections: RSS
 * 292 -> 185 MB and 15 % more requests per second without pretenuring; a request/response
 * server has no site whose objects outlive a request.
 *
 * Passing --allocation-site-pretenuring (or its --no- form) on the command line wins.
 */
if (!process.execArgv.some((flag) => /^--(no-)?allocation[-_]site[-_]pretenuring$/.test(flag))) {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
