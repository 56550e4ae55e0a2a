"""The judging keystroke in one database call, on PostgreSQL (see `judging.keystroke`).

`judging_keystroke` stores one judgment the way `services.judgment_submit` does, refreshes the assignment's status
the way `services.assignment_refresh_status` does, and returns what the next card needs, as `selectors.queue_state`
reads it: one round trip and one statement for the server instead of about ten. It stores only what it is sure of
and otherwise returns, storing nothing, an `outcome` that names why (the caller then hands the request to Django's
view, which does the full work): a user whose password or activity changed since the session was checked, another
person's assignment, an adjudication assignment, a pair outside the pool, a user without a judge, a post-edit
assignment without an LLM judge, a repeated token. Dropped by 0009: the keystroke is served by Django alone."""

from django.db import migrations

FUNCTION = r"""
CREATE OR REPLACE FUNCTION judging_keystroke(
    p_user bigint, p_password text, p_assignment bigint, p_pair bigint, p_label text, p_token uuid,
    p_seconds double precision, p_flagged boolean, p_comment text,
    OUT outcome text, OUT assignment_condition text, OUT first_judgment boolean, OUT highlight boolean, OUT held_back integer,
    OUT next_pair bigint, OUT passage_id text, OUT passage_title text, OUT passage_text text,
    OUT sentence_index integer, OUT answer_indexes integer[], OUT answer_texts text[], OUT llm_label text,
    OUT assignment_ids bigint[], OUT assignment_stamps timestamptz[])
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    a record;
    v_citation bigint;
    v_judge bigint;
    v_shown text := '';
    v_judged integer;
    v_id bigint;
    v_next_citation bigint;
    v_answer bigint;
    v_status text;
BEGIN
    PERFORM 1 FROM auth_user u WHERE u.id = p_user AND u.password = p_password AND u.is_active;
    IF NOT FOUND THEN outcome := 'user'; RETURN; END IF;
    SELECT x.campaign_id, x.topic_id, x.condition, x.status, c.post_edit_judge_id, c.highlight_evidence INTO a
      FROM judging_assignment x JOIN judging_campaign c ON c.id = x.campaign_id
     WHERE x.id = p_assignment AND x.assessor_id = p_user;
    IF NOT FOUND THEN outcome := 'assignment'; RETURN; END IF;
    IF a.condition NOT IN ('from_scratch', 'post_edit')
       OR (a.condition = 'post_edit' AND a.post_edit_judge_id IS NULL) THEN
        outcome := 'condition'; RETURN;
    END IF;
    SELECT cp.context_citation_id INTO v_citation FROM judging_campaignpair cp
     WHERE cp.campaign_id = a.campaign_id AND cp.topic_id = a.topic_id AND cp.pair_id = p_pair;
    IF NOT FOUND THEN outcome := 'pool'; RETURN; END IF;
    SELECT h.id INTO v_judge FROM judging_judge h WHERE h.user_id = p_user;
    IF v_judge IS NULL THEN outcome := 'judge'; RETURN; END IF;
    IF a.condition = 'post_edit' THEN
        SELECT coalesce((SELECT l.label FROM judging_judgment l WHERE l.judge_id = a.post_edit_judge_id
                          AND l.pair_id = p_pair ORDER BY l.created_at DESC, l.id DESC LIMIT 1), '') INTO v_shown;
    END IF;
    SELECT count(*) INTO v_judged FROM judging_judgment j WHERE j.assignment_id = p_assignment AND j.pair_id = p_pair;
    INSERT INTO judging_judgment (judge_id, pair_id, citation_id, label, condition, assignment_id, shown_label,
                                  label_changed, seconds, submission_token, flagged, comment, created_at)
    VALUES (v_judge, p_pair, v_citation, p_label, a.condition, p_assignment, v_shown,
            CASE WHEN v_shown <> '' THEN p_label <> v_shown END, p_seconds, p_token,
            p_flagged, p_comment, now())
    ON CONFLICT (submission_token) DO NOTHING RETURNING id INTO v_id;
    IF v_id IS NULL THEN outcome := 'duplicate'; RETURN; END IF;
    first_judgment := v_judged = 0;
    assignment_condition := a.condition;
    highlight := a.highlight_evidence;

    -- The next pending pair, in queue order (`selectors._next_pending`), and its card.
    IF a.condition = 'post_edit' THEN
        SELECT cp.pair_id, cp.context_citation_id INTO next_pair, v_next_citation FROM judging_campaignpair cp
         WHERE cp.campaign_id = a.campaign_id AND cp.topic_id = a.topic_id
           AND NOT EXISTS (SELECT 1 FROM judging_judgment j WHERE j.assignment_id = p_assignment AND j.pair_id = cp.pair_id)
           AND EXISTS (SELECT 1 FROM judging_judgment l WHERE l.judge_id = a.post_edit_judge_id AND l.pair_id = cp.pair_id)
         ORDER BY cp.position LIMIT 1;
        SELECT count(*) INTO held_back FROM judging_campaignpair cp
         WHERE cp.campaign_id = a.campaign_id AND cp.topic_id = a.topic_id
           AND NOT EXISTS (SELECT 1 FROM judging_judgment j WHERE j.assignment_id = p_assignment AND j.pair_id = cp.pair_id)
           AND NOT EXISTS (SELECT 1 FROM judging_judgment l WHERE l.judge_id = a.post_edit_judge_id AND l.pair_id = cp.pair_id);
    ELSE
        SELECT cp.pair_id, cp.context_citation_id INTO next_pair, v_next_citation FROM judging_campaignpair cp
         WHERE cp.campaign_id = a.campaign_id AND cp.topic_id = a.topic_id
           AND NOT EXISTS (SELECT 1 FROM judging_judgment j WHERE j.assignment_id = p_assignment AND j.pair_id = cp.pair_id)
         ORDER BY cp.position LIMIT 1;
        held_back := 0;
    END IF;
    IF next_pair IS NOT NULL THEN
        SELECT pa.passage_id, pa.title, pa.text, s.answer_id, s."index"
          INTO passage_id, passage_title, passage_text, v_answer, sentence_index
          FROM judging_pair pr JOIN assess_passage pa ON pa.id = pr.passage_id,
               assess_citation ci JOIN assess_sentence s ON s.id = ci.sentence_id
         WHERE pr.id = next_pair AND ci.id = v_next_citation;
        SELECT array_agg(s."index" ORDER BY s."index"), array_agg(s.text ORDER BY s."index")
          INTO answer_indexes, answer_texts FROM assess_sentence s WHERE s.answer_id = v_answer;
        IF a.condition = 'post_edit' THEN
            SELECT l.label INTO llm_label FROM judging_judgment l
             WHERE l.judge_id = a.post_edit_judge_id AND l.pair_id = next_pair
             ORDER BY l.created_at DESC, l.id DESC LIMIT 1;
        END IF;
    END IF;

    -- The assignment's status (`services.assignment_refresh_status`).
    v_status := CASE WHEN next_pair IS NULL AND held_back = 0 THEN 'done' ELSE 'open' END;
    IF v_status <> a.status THEN
        UPDATE judging_assignment SET status = v_status WHERE id = p_assignment;
    END IF;
    -- The assessor's assignments, whose progress counts the caller reads from the cache.
    SELECT array_agg(x.id ORDER BY x.id), array_agg(x.created_at ORDER BY x.id)
      INTO assignment_ids, assignment_stamps FROM judging_assignment x WHERE x.assessor_id = p_user;
    outcome := 'stored';
END;
$$;
"""

DROP = "DROP FUNCTION IF EXISTS judging_keystroke(bigint, text, bigint, bigint, text, uuid, double precision, boolean, text);"


def create(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION)


def drop(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("judging", "0005_campaignpair_position")]

    operations = [migrations.RunPython(create, drop)]
