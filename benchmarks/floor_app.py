"""The smallest Streamlit page a query switch can rerun: one select box and the line it changes.

`bench_load.py` serves it beside the dashboard and times the same number of browser sessions switching its query at
once: the ratio this page reaches at each level is the floor that Streamlit and the browsers sharing the machine
set, whatever the dashboard does. Usage: streamlit run benchmarks/floor_app.py
"""

import streamlit as st

query = st.selectbox("Query", [f"query_{number:06d}" for number in range(500)], key="query")
st.markdown(f"Shown: {query}")
