"""LLM pre-labelling, a Django app nested in judging (label `llm`), with all its layers:

- `models`: LLMJudge (how to call a judge), LLMResult (one per judge, prompt version and pair), PrelabelJob;
- `prompt`, `parse`: the versioned support prompt and reading a label out of a reply;
- `client`, `calls`, `ratelimit`, `aio`: provider clients, one call with its retries, the limits shared by
  every worker, and the event loop the calls run on;
- `services`: judges, claims and results, a job's status; `chunks`: a job's work chunk by chunk (and a whole
  job in process); `batch`: the same through the Batch API; `jobs`: start, cancel, resume, retry;
- `tasks`: the Celery tasks; `selectors`: judges, jobs and progress;
- `views` + `urls` (pages, in the `judging` namespace), `api` + `api_urls`, `admin`, `management/commands`.

Imports go one way: jobs -> tasks -> chunks -> batch -> services (-> calls, client, prompt, selectors, models).
"""
