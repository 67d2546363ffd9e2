# The paper's loop for bench/loop-compare.ts: the released hotpotqa.ipynb (ysymyth/ReAct @6bdb3a1)
# webthink loop with its wikienv.py and wrappers.py, in Python, one question after another, as the
# notebook runs it. Departures from the notebook, all so it runs here against the local stand-ins
# (each is listed in bench/results-loop.md):
# - the model: openai-python 0.x is not installed; llm() POSTs the same Completions request body
#   (model, prompt, temperature 0, max_tokens 100, top_p 1, penalties 0, stop) with requests, through
#   one thread-local requests.Session as openai 0.x's api_requestor did (keep-alive), with 0.x's
#   headers, and wraps the JSON answer in dicts as 0.x's OpenAIObject did (approximately: a plain
#   dict subclass, which costs less CPU than OpenAIObject).
# - the environment: BeautifulSoup(html.parser) is the real bs4 when the interpreter has it (the bench
#   looks for one: Debian's python3-bs4 is 4.11.2); without it, a small tree built with Python's
#   html.parser stands in (the parser bs4 uses here, so the same tree: no implied end tags; comments
#   and <style>/<script> text left out of get_text, as bs4 4.11 does), which costs less CPU than
#   bs4's pure-Python tree building. The totals line names the one that ran. The search URL's origin is the stand-in's (--wiki-url) instead of
#   https://en.wikipedia.org; requests.get() without a session, as wikienv.py calls it (a new
#   connection per search).
# - gym is not installed: WikiEnv and the wrappers are plain classes with the same methods; numpy's
#   random index is unused (the question indices are given).
# - the questions: the indices on the command line (the bench passes the first 48 of the split our
#   CLI runs) instead of idxs[:500] of random.Random(233).shuffle(range(7405)).
# - the prompt: the notebook's instruction (hotpotqa_instruction.json, the same text) + webthink_simple6.
# - at the end one JSON line on stderr with the totals (calls, bad calls, EM) for the bench, and, when
#   PAPER_LOOP_TRAJS names a file, each question's final prompt (info["traj"]) by index, which the
#   bench compares with our run's (the two loops must have run the same episodes).
# Usage: python3 paper_loop.py ROOT MODEL_BASE_URL WIKI_BASE_URL MODEL IDX [IDX ...]
import json
import os
import re
import string
import sys
import threading
import time
from collections import Counter
from html.entities import name2codepoint
from html.parser import HTMLParser

import requests

ROOT, MODEL_BASE, WIKI_BASE, MODEL = sys.argv[1:5]
IDXS = [int(x) for x in sys.argv[5:]]

# ---- openai 0.x's Completion.create, as the notebook calls it ---------------------------------
_thread_context = threading.local()
API_KEY = os.environ.get("OPENAI_API_KEY", "sk-bench")


class OpenAIObject(dict):
    pass


def _convert(v):
    if isinstance(v, list):
        return [_convert(x) for x in v]
    if isinstance(v, dict):
        o = OpenAIObject()
        for k, x in v.items():
            o[k] = _convert(x)
        return o
    return v


def completion_create(**params):
    if not hasattr(_thread_context, "session"):
        _thread_context.session = requests.Session()
    ua = {"bindings_version": "0.23.0", "httplib": "requests", "lang": "python", "lang_version": sys.version.split()[0], "platform": sys.platform, "publisher": "openai"}
    headers = {
        "X-OpenAI-Client-User-Agent": json.dumps(ua),
        "User-Agent": "OpenAI/v1 PythonBindings/0.23.0",
        "Authorization": "Bearer %s" % API_KEY,
        "Content-Type": "application/json",
    }
    result = _thread_context.session.request("post", MODEL_BASE.rstrip("/") + "/completions", headers=headers, data=json.dumps(params), timeout=600)
    if not 200 <= result.status_code < 300:
        raise RuntimeError("model endpoint answered %d: %s" % (result.status_code, result.text[:200]))
    return _convert(json.loads(result.content))


def llm(prompt, stop=["\n"]):
    response = completion_create(
        model=MODEL,
        prompt=prompt,
        temperature=0,
        max_tokens=100,
        top_p=1,
        frequency_penalty=0.0,
        presence_penalty=0.0,
        stop=stop,
    )
    return response["choices"][0]["text"]


# ---- the part of BeautifulSoup(html.parser) wikienv.py uses ---------------------------------
# As bs4 4.11's html.parser tree builder: no implied end tags (an end tag closes the nearest open
# element of its name, a stray one is ignored); runs of text are joined and a run of ASCII whitespace
# alone becomes "\n" or " " (outside <pre>/<textarea>); entities and character references decoded as
# bs4 decodes them; get_text() leaves out comments and the text inside <style>, <script>, <template>.
# Checked against test/fixtures/wikipedia/bs4.json (bs4 4.11.2's answers).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
HIDDEN = {"style", "script", "template"}
ASCII_SPACES = str.maketrans("", "", "\x20\x0a\x09\x0c\x0d")


class Hidden(str):
    pass


class Tag:
    def __init__(self, name, attrs, parent):
        self.name, self.attrs, self.parent, self.children = name, dict(attrs), parent, []

    def get_text(self):
        out = []

        def walk(t):
            for c in t.children:
                if isinstance(c, Tag):
                    walk(c)
                elif not isinstance(c, Hidden):
                    out.append(c)

        walk(self)
        return "".join(out)

    def find_all(self, name, attrs=None):
        found = []
        cls = (attrs or {}).get("class")

        def walk(t):
            for c in t.children:
                if isinstance(c, Tag):
                    if c.name == name and (cls is None or cls in (c.attrs.get("class") or "").split()):
                        found.append(c)
                    walk(c)

        walk(self)
        return found


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.root = Tag("[document]", [], None)
        self.cur = self.root
        self.text = []

    def _inside(self, names):
        t = self.cur
        while t is not None:
            if t.name in names:
                return True
            t = t.parent
        return False

    def _flush(self):
        if not self.text:
            return
        data = "".join(self.text)
        self.text = []
        if data.translate(ASCII_SPACES) == "" and not self._inside(("pre", "textarea")):
            data = "\n" if "\n" in data else " "
        self.cur.children.append(Hidden(data) if self._inside(HIDDEN) else data)

    def handle_starttag(self, tag, attrs):
        self._flush()
        t = Tag(tag, attrs, self.cur)
        self.cur.children.append(t)
        if tag not in VOID:
            self.cur = t

    def handle_startendtag(self, tag, attrs):
        self._flush()
        self.cur.children.append(Tag(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        self._flush()
        t = self.cur
        while t is not None and t.name != tag:
            t = t.parent
        if t is not None and t.parent is not None:
            self.cur = t.parent

    def handle_data(self, data):
        self.text.append(data)

    def handle_charref(self, name):
        n = int(name[1:], 16) if name[:1] in ("x", "X") else int(name)
        data = None
        if n < 256:
            try:
                data = bytearray([n]).decode("windows-1252")
            except UnicodeDecodeError:
                pass
        if not data:
            try:
                data = chr(n)
            except (ValueError, OverflowError):
                pass
        self.handle_data(data or "\N{REPLACEMENT CHARACTER}")

    def handle_entityref(self, name):
        cp = name2codepoint.get(name)
        self.handle_data(chr(cp) if cp is not None else "&%s" % name)

    def handle_comment(self, data):
        self._flush()

    def unknown_decl(self, data):
        self._flush()
        if data.startswith("CDATA["):
            self.text.append(data[len("CDATA[") :])
            self._flush()

    def close(self):
        super().close()
        self._flush()


def BeautifulSoup(text, features="html.parser"):
    b = TreeBuilder()
    b.feed(text)
    b.close()
    return b.root


# The real bs4, when this interpreter has it (Debian's python3-bs4 is 4.11.2, the version the stand-in
# above imitates): the notebook's parser, CPU included. The totals line says which one ran.
try:
    import bs4

    BeautifulSoup = bs4.BeautifulSoup  # noqa: F811
    PARSER = "bs4 " + bs4.__version__
except ImportError:
    PARSER = "stand-in (html.parser tree; bs4 not installed)"


# ---- wikienv.py --------------------------------------------------------------------------------
def clean_str(p):
    return p.encode().decode("unicode-escape").encode("latin1").decode("utf-8")


class WikiEnv:
    def __init__(self):
        self.page = None
        self.obs = None
        self.lookup_keyword = None
        self.lookup_list = None
        self.lookup_cnt = None
        self.steps = 0
        self.answer = None
        self.search_time = 0
        self.num_searches = 0

    def _get_obs(self):
        return self.obs

    def _get_info(self):
        return {"steps": self.steps, "answer": self.answer}

    def reset(self, seed=None, return_info=False, options=None):
        self.obs = "Interact with Wikipedia using search[], lookup[], and finish[].\n"
        self.page = None
        self.lookup_keyword = None
        self.lookup_list = None
        self.lookup_cnt = None
        self.steps = 0
        self.answer = None
        observation = self._get_obs()
        info = self._get_info()
        return (observation, info) if return_info else observation

    def construct_lookup_list(self, keyword):
        if self.page is None:
            return []
        paragraphs = self.page.split("\n")
        paragraphs = [p.strip() for p in paragraphs if p.strip()]
        sentences = []
        for p in paragraphs:
            sentences += p.split(". ")
        sentences = [s.strip() + "." for s in sentences if s.strip()]
        parts = sentences
        parts = [p for p in parts if keyword.lower() in p.lower()]
        return parts

    @staticmethod
    def get_page_obs(page):
        paragraphs = page.split("\n")
        paragraphs = [p.strip() for p in paragraphs if p.strip()]
        sentences = []
        for p in paragraphs:
            sentences += p.split(". ")
        sentences = [s.strip() + "." for s in sentences if s.strip()]
        return " ".join(sentences[:5])

    def search_step(self, entity):
        entity_ = entity.replace(" ", "+")
        search_url = f"{WIKI_BASE.rstrip('/')}/w/index.php?search={entity_}"
        old_time = time.time()
        response_text = requests.get(search_url).text
        self.search_time += time.time() - old_time
        self.num_searches += 1
        soup = BeautifulSoup(response_text, features="html.parser")
        result_divs = soup.find_all("div", {"class": "mw-search-result-heading"})
        if result_divs:
            self.result_titles = [clean_str(div.get_text().strip()) for div in result_divs]
            self.obs = f"Could not find {entity}. Similar: {self.result_titles[:5]}."
        else:
            page = [p.get_text().strip() for p in soup.find_all("p") + soup.find_all("ul")]
            if any("may refer to:" in p for p in page):
                self.search_step("[" + entity + "]")
            else:
                self.page = ""
                for p in page:
                    if len(p.split(" ")) > 2:
                        self.page += clean_str(p)
                        if not p.endswith("\n"):
                            self.page += "\n"
                self.obs = self.get_page_obs(self.page)
                self.lookup_keyword = self.lookup_list = self.lookup_cnt = None

    def step(self, action):
        reward = 0
        done = False
        action = action.strip()
        if self.answer is not None:
            done = True
            return self.obs, reward, done, self._get_info()
        if action.startswith("search[") and action.endswith("]"):
            entity = action[len("search[") : -1]
            self.search_step(entity)
        elif action.startswith("lookup[") and action.endswith("]"):
            keyword = action[len("lookup[") : -1]
            if self.lookup_keyword != keyword:
                self.lookup_keyword = keyword
                self.lookup_list = self.construct_lookup_list(keyword)
                self.lookup_cnt = 0
            if self.lookup_cnt >= len(self.lookup_list):
                self.obs = "No more results.\n"
            else:
                self.obs = f"(Result {self.lookup_cnt + 1} / {len(self.lookup_list)}) " + self.lookup_list[self.lookup_cnt]
                self.lookup_cnt += 1
        elif action.startswith("finish[") and action.endswith("]"):
            answer = action[len("finish[") : -1]
            self.answer = answer
            done = True
            self.obs = f"Episode finished, reward = {reward}\n"
        elif action.startswith("think[") and action.endswith("]"):
            self.obs = "Nice thought."
        else:
            self.obs = "Invalid action: {}".format(action)
        self.steps += 1
        return self.obs, reward, done, self._get_info()


# ---- wrappers.py -------------------------------------------------------------------------------
def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    normalized_prediction = normalize_answer(prediction)
    normalized_ground_truth = normalize_answer(ground_truth)
    ZERO_METRIC = (0, 0, 0)
    if normalized_prediction in ["yes", "no", "noanswer"] and normalized_prediction != normalized_ground_truth:
        return ZERO_METRIC
    if normalized_ground_truth in ["yes", "no", "noanswer"] and normalized_prediction != normalized_ground_truth:
        return ZERO_METRIC
    prediction_tokens = normalized_prediction.split()
    ground_truth_tokens = normalized_ground_truth.split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return ZERO_METRIC
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1, precision, recall


class HotPotQAWrapper:
    def __init__(self, env, split):
        self.env = env
        data_file = os.path.join(ROOT, "data", "hotpotqa", "hotpot_dev_v1_simplified.json")
        self.data = json.load(open(data_file))
        self.data = [(d["question"], d["answer"]) for d in self.data]
        self.data_idx = 0
        self.split = split

    def __getattr__(self, name):
        return getattr(self.env, name)

    def reset(self, seed=None, return_info=False, options=None, idx=None):
        self.env.reset(seed=seed, return_info=return_info, options=options)
        try:
            self.env.step("")
        except Exception:
            pass
        self.env.reset(seed=seed, return_info=return_info, options=options)
        self.data_idx = idx
        observation = f"Question: {self.data[self.data_idx][0]}"
        info = self._get_info()
        return (observation, info) if return_info else observation

    def _get_info(self):
        return {"steps": self.env.steps, "answer": self.env.answer, "question": self.data[self.data_idx][0], "hotpot_split": self.split}

    def get_reward(self, info):
        if info["answer"] is not None:
            pred = normalize_answer(self.data[self.data_idx][1])
            gt = normalize_answer(info["answer"])
            score = pred == gt
            return int(score)
        return 0

    def get_metrics(self, info):
        if info["answer"] is not None:
            pred = normalize_answer(self.data[self.data_idx][1])
            gt = normalize_answer(info["answer"])
            em = pred == gt
            f1 = f1_score(pred, gt)[0]
            return {"reward": em, "em": em, "f1": f1}
        return {"reward": 0, "em": 0, "f1": 0}

    def step(self, action):
        obs, _, done, info = self.env.step(action)
        reward = self.get_reward(info)
        if done:
            obs = f"Episode finished, reward = {reward}\n"
            info.update({"gt_answer": self.data[self.data_idx][1], "question_idx": self.data_idx})
            info.update(self.get_metrics(info))
        return obs, reward, done, info


class LoggingWrapper:
    def __init__(self, env):
        self.env = env
        self.trajs = []
        self.traj = {"observations": [], "actions": []}

    def __getattr__(self, name):
        return getattr(self.env, name)

    def reset(self, seed=None, return_info=False, options=None, idx=None):
        output = self.env.reset(seed=seed, return_info=return_info, options=options, idx=idx)
        observation = output[0] if return_info else output
        self.traj = {"observations": [observation], "actions": []}
        return output

    def step(self, action):
        obs, reward, done, info = self.env.step(action)
        self.traj["observations"].append(obs)
        self.traj["actions"].append(action)
        return obs, reward, done, info


# ---- hotpotqa.ipynb ----------------------------------------------------------------------------
env = WikiEnv()
env = HotPotQAWrapper(env, split="dev")
env = LoggingWrapper(env)


def step(env, action):
    attempts = 0
    while attempts < 10:
        try:
            return env.step(action)
        except requests.exceptions.Timeout:
            attempts += 1


with open(os.path.join(ROOT, "prompts", "prompts_naive.json"), "r") as f:
    prompt_dict = json.load(f)
webthink_examples = prompt_dict["webthink_simple6"]
with open(os.path.join(ROOT, "prompts", "hotpotqa_instruction.json"), "r") as f:
    instruction = json.load(f)["webthink_instruction"]
webthink_prompt = instruction + webthink_examples


def webthink(idx=None, prompt=webthink_prompt, to_print=True):
    question = env.reset(idx=idx)
    if to_print:
        print(idx, question)
    prompt += question + "\n"
    n_calls, n_badcalls = 0, 0
    for i in range(1, 8):
        n_calls += 1
        thought_action = llm(prompt + f"Thought {i}:", stop=[f"\nObservation {i}:"])
        try:
            thought, action = thought_action.strip().split(f"\nAction {i}: ")
        except Exception:
            print("ohh...", thought_action)
            n_badcalls += 1
            n_calls += 1
            thought = thought_action.strip().split("\n")[0]
            action = llm(prompt + f"Thought {i}: {thought}\nAction {i}:", stop=[f"\n"]).strip()
        obs, r, done, info = step(env, action[0].lower() + action[1:])
        obs = obs.replace("\\n", "")
        step_str = f"Thought {i}: {thought}\nAction {i}: {action}\nObservation {i}: {obs}\n"
        prompt += step_str
        if to_print:
            print(step_str)
        if done:
            break
    if not done:
        obs, r, done, info = step(env, "finish[]")
    if to_print:
        print(info, "\n")
    info.update({"n_calls": n_calls, "n_badcalls": n_badcalls, "traj": prompt})
    return r, info


rs = []
infos = []
old_time = time.time()
for i in IDXS:
    r, info = webthink(i, to_print=True)
    rs.append(info["em"])
    infos.append(info)
    print(sum(rs), len(rs), sum(rs) / len(rs), (time.time() - old_time) / len(rs))
    print("-----------")
    print()

if os.environ.get("PAPER_LOOP_TRAJS"):
    with open(os.environ["PAPER_LOOP_TRAJS"], "w") as f:
        json.dump({str(i["question_idx"]): i["traj"] for i in infos}, f)
sys.stderr.write(json.dumps({"episodes": len(infos), "calls": sum(i["n_calls"] for i in infos), "badcalls": sum(i["n_badcalls"] for i in infos), "em": sum(rs), "searches": env.num_searches, "parser": PARSER}) + "\n")
