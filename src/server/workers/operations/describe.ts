import type { OxStore } from '../../../store/store.ts';
import { describeQueryJob } from '../../description.ts';
import type { DescribeJob, JobResult } from '../../messages.ts';
import { runQueryJob } from './query.ts';

/** The same description as RDF: the resource, its blocks, and (a bounded number of) incoming links. */
export function describeGraphJob(store: OxStore, job: DescribeJob): JobResult {
  return runQueryJob(store, describeQueryJob(job));
}
