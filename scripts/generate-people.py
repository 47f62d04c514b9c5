#!/usr/bin/env python3
"""Writes the demo's people: realistic, deterministic (seeded), in the shape config/sectional.json uses.

    scripts/generate-people.py COUNT > config/seed/people.json

Also used by the benchmarks to make 100,000 and 1,000,000-record data sets.
"""
import json
import random
import sys

FIRST = ("Ada Alan Grace Edsger Barbara Donald Margaret Ken Dennis Bjarne Guido Linus Frances John Radia "
         "Hedy Katherine Tim Vint Leslie Shafi Niklaus Fran Adele Sophie Yukihiro Anders Rasmus Brendan James "
         "Mary Jean Evelyn Ruth Kathleen Lynn Carol Susan Whitfield Martin Robin Judea Silvio Cynthia Dorothy "
         "Mei Aiko Priya Arjun Olu Chidi Ines Mateo Lucia Sven Ingrid Noor Omar Yara Kofi Amara Hana Jonas").split()
LAST = ("Lovelace Turing Hopper Dijkstra Liskov Knuth Hamilton Thompson Ritchie Stroustrup Rossum Torvalds "
        "Allen Backus Perlman Lamarr Johnson Berners-Lee Cerf Lamport Goldwasser Wirth Goldberg Wilson Matsumoto "
        "Hejlsberg Lerdorf Eich Gosling Keller Sammet Boyd Teitelbaum Antonelli Conway Hoare Milner Pearl Micali "
        "Dwork Vaughan Chen Tanaka Patel Sharma Okafor Eze Garcia Rossi Larsen Berg Haddad Nasser Mensah Diallo "
        "Kim Schmidt Novak Silva").split()
TEAMS = ["Design", "Engineering", "Marketing", "Sales", "Support", "Finance", "Legal", "Research",
         "Operations", "People", "Archived"]
TITLES = {
    "Design": ["Product Designer", "UX Researcher", "Design Lead"],
    "Engineering": ["iOS Engineer", "Android Engineer", "Backend Engineer", "Site Reliability Engineer", "Engineering Manager"],
    "Marketing": ["Content Strategist", "Growth Marketer", "Brand Manager"],
    "Sales": ["Account Executive", "Sales Engineer", "Sales Director"],
    "Support": ["Support Specialist", "Support Lead"],
    "Finance": ["Accountant", "Financial Analyst", "Controller"],
    "Legal": ["Counsel", "Paralegal"],
    "Research": ["Research Scientist", "Data Scientist"],
    "Operations": ["Operations Manager", "Office Manager"],
    "People": ["Recruiter", "People Partner"],
    "Archived": ["Former Employee"],
}
BOTS = ["Deploy Bot", "Standup Bot", "Triage Bot", "Release Bot", "Alert Bot", "Calendar Bot"]


def people(count, seed=2026):
    rng = random.Random(seed)
    for n in range(1, count + 1):
        team = TEAMS[min(int(rng.expovariate(0.35)), len(TEAMS) - 1)] if n % 17 else "Archived"
        person = {"id": f"p-{n:0{max(4, len(str(count)))}d}"}
        if n % 97 == 0:
            name = rng.choice(BOTS) + f" {n}"
            person.update(name=name, kind="bot", email=f"bot{n}@example.com", team=team, title="Automation")
        else:
            first, last = rng.choice(FIRST), rng.choice(LAST)
            person.update(name=f"{first} {last}", kind="person",
                          email=f"{first.lower()}.{last.lower()}{n}@example.com",
                          team=team, title=rng.choice(TITLES[team]))
        person["salary"] = round(rng.uniform(48_000, 210_000), 2)
        person["startDate"] = f"{rng.randint(2012, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        person["active"] = team != "Archived"
        person["avatar"] = f"person.crop.circle.fill"
        unread = rng.choice([0, 0, 0, 1, 2, 3, 5, 12])
        if unread:
            person["unread"] = unread  # absent when zero, so the row's badge is omitted
        yield person


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1200
    out = sys.stdout
    out.write("[\n")
    for i, person in enumerate(people(count)):
        out.write(("" if i == 0 else ",\n") + json.dumps(person, separators=(",", ":")))
    out.write("\n]\n")


if __name__ == "__main__":
    main()
